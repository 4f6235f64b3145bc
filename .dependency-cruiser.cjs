// `pnpm cycles`: no import cycle inside any package's src (shared, daemon, cli, node), and the
// layers below kept.
// Type-only imports count too (`tsPreCompilationDeps: true`): they vanish at runtime, but a
// cycle through types still ties the modules together and is the seed of a runtime cycle.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Import cycles make load order matter and modules impossible to read alone.',
      from: {},
      to: { circular: true },
    },
    // The layers (issue 25, item 4; docs/architecture.md). The rules hold for type-only imports too.
    {
      name: 'shared-at-the-bottom',
      severity: 'error',
      comment: '@tapline/shared is the wire contract every package builds on; it imports none of them.',
      from: { path: '^packages/shared/src/' },
      to: { path: '^packages/(daemon|cli|node|testkit)/' },
    },
    {
      name: 'no-test-kit-in-shipped-code',
      severity: 'error',
      comment: 'The test kit is for tests; a file under src that needs it is a test or belongs in the kit.',
      from: { path: '^packages/(shared|daemon|cli|node)/src/', pathNot: '\\.test\\.tsx?$' },
      to: { path: '^packages/testkit/' },
    },
    {
      name: 'db-below-the-capabilities',
      severity: 'error',
      comment:
        "The daemon's db/ opens, migrates and types the database; it imports no capability folder, " +
        'except the table.ts (or <name>-table.ts) files its DB type is assembled from. The payload codec still lives in ' +
        'http-traffic/ and is a known exception, until it moves under db/ (issue 25, item 4). The same holds for the ' +
        "statistics' stored sketch codec and row arithmetic (route-stats/sketch.ts, rollup.ts, leaves that import no other " +
        'capability): the rollups migration folds stored minute rows with them (docs/decisions.md §21.5).',
      from: { path: '^packages/daemon/src/db/', pathNot: '\\.test\\.ts$' },
      to: {
        path: '^packages/daemon/src/[^/]+/',
        pathNot: [
          '^packages/daemon/src/db/',
          '/table\\.ts$',
          '-table\\.ts$',
          '^packages/daemon/src/http-traffic/payload(-codec)?\\.ts$',
          '^packages/daemon/src/route-stats/(sketch|rollup)\\.ts$',
        ],
      },
    },
    {
      name: 'commands-apart',
      severity: 'error',
      comment:
        "One command's module never imports another's (admin/ is the user and token commands); shared failures are exit-error.ts.",
      from: {
        path: '^packages/daemon/src/',
        pathNot: ['^packages/daemon/src/admin/', '^packages/daemon/src/main\\.ts$', '\\.test\\.ts$'],
      },
      to: { path: '^packages/daemon/src/admin/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.d.ts'],
    },
  },
};
