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
      comment:
        'The test kit is for tests; a file under src that needs it is a test, a fixture tests share (*.fixture.ts), or belongs in the kit.',
      from: { path: '^packages/(shared|daemon|cli|node)/src/', pathNot: '\\.(test|fixture)\\.tsx?$' },
      to: { path: '^packages/testkit/' },
    },
    {
      name: 'no-test-code-in-shipped-code',
      severity: 'error',
      comment: 'Tests and their fixtures are never imported by what ships.',
      from: { path: '^packages/(shared|daemon|cli|node)/src/', pathNot: '\\.(test|fixture)\\.tsx?$' },
      to: { path: '\\.(test|fixture)\\.tsx?$' },
    },
    {
      name: 'daemon-start-builds-no-schema',
      severity: 'error',
      comment:
        "The daemon's start builds none of the contract's schemas (decisions §20.23): its modules import " +
        "@tapline/shared's index only for types (`import type`), and take values from @tapline/shared/lean; " +
        'the contract with its schemas comes through http/schemas.ts, an import() on first use. Exceptions: ' +
        'http/schemas-loaded.ts (what that import loads), meta/openapi.ts (imported by the first GET /openapi.json) ' +
        "and the batch thread's own bundle (ingest/prepare-pool-thread.ts).",
      from: {
        path: '^packages/daemon/src/',
        pathNot: [
          '\\.(test|fixture)\\.tsx?$',
          '^packages/daemon/src/http/schemas-loaded\\.ts$',
          '^packages/daemon/src/meta/openapi\\.ts$',
          '^packages/daemon/src/ingest/prepare-pool-thread\\.ts$',
        ],
      },
      to: { path: '^packages/shared/src/(index|browser|contract)\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'db-below-the-capabilities',
      severity: 'error',
      comment:
        "The daemon's db/ opens, migrates and types the database, and encodes what it stores (payload.ts, " +
        'payload-codec.ts); it imports no capability folder, except the table.ts (or <name>-table.ts) files its DB ' +
        'type is assembled from, and of the files beside it only the ground floor (exit-error.ts, clock.ts, config.ts). ' +
        "One exception: the statistics' stored sketch codec and row arithmetic (route-stats/sketch.ts, rollup.ts, leaves " +
        'that import no other capability), with which the rollups migration folds stored minute rows and SQLite merges a ' +
        "row's sketch in its upsert (decisions §21.5, §21.6).",
      from: { path: '^packages/daemon/src/db/', pathNot: '\\.test\\.ts$' },
      to: {
        path: '^packages/daemon/src/',
        pathNot: [
          '^packages/daemon/src/db/',
          '/table\\.ts$',
          '-table\\.ts$',
          '^packages/daemon/src/(exit-error|clock|config)\\.ts$',
          '^packages/daemon/src/route-stats/(sketch|rollup)\\.ts$',
        ],
      },
    },
    {
      name: 'ground-floor',
      severity: 'error',
      comment:
        'config.ts (settings and defaults), exit-error.ts and flags.ts (the flag parsers) are what serve.ts, the commands ' +
        'and every route build on; they import only each other and leaves (the options.ts of a capability, ' +
        'http/trust-proxy.ts), never serve.ts, deps.ts or a service.',
      from: { path: '^packages/daemon/src/(config|exit-error|flags)\\.ts$' },
      to: {
        path: '^packages/daemon/src/',
        pathNot: [
          '^packages/daemon/src/(config|exit-error)\\.ts$',
          '^packages/daemon/src/[^/]+/options\\.ts$',
          '^packages/daemon/src/http/trust-proxy\\.ts$',
        ],
      },
    },
    {
      name: 'ground-floor-leaves',
      severity: 'error',
      comment:
        'The options.ts files and http/trust-proxy.ts that config.ts imports import nothing of the daemon, so the ground floor stays one.',
      from: { path: '^packages/daemon/src/([^/]+/options|http/trust-proxy)\\.ts$' },
      to: { path: '^packages/daemon/src/' },
    },
    {
      name: 'http-below-the-capabilities',
      severity: 'error',
      comment:
        "http/ (the server, mount, the body reader, errors) serves every capability's routes, so it imports none of them: " +
        'not deps.ts, which ties all their services together (http/server-deps.ts is its part), nor app.ts or serve.ts. ' +
        'auth/ (the token check and its audit) and db/ (outages) are below it, and first-use.ts, which loads on ' +
        "first use what no start runs (the bundle's second file, decisions §20.27) and imports nothing at load, " +
        'with load-once.ts, which retries such a load that failed.',
      from: { path: '^packages/daemon/src/http/', pathNot: '\\.test\\.ts$' },
      to: {
        path: '^packages/daemon/src/',
        pathNot: [
          '^packages/daemon/src/(http|auth|db)/',
          '^packages/daemon/src/(config|exit-error|clock|first-use|load-once)\\.ts$',
        ],
      },
    },
    {
      name: 'commands-apart',
      severity: 'error',
      comment:
        "The daemon's commands are one module each in commands/; one never imports another, but for commands/database.ts " +
        '(where --home, --db and --db-pool lead). Shared failures are exit-error.ts.',
      from: { path: '^packages/daemon/src/commands/' },
      to: { path: '^packages/daemon/src/commands/', pathNot: '^packages/daemon/src/commands/database\\.ts$' },
    },
    {
      name: 'commands-on-top',
      severity: 'error',
      comment: 'Only main.ts wires the commands: no other module imports commands/.',
      from: {
        path: '^packages/daemon/src/',
        pathNot: ['^packages/daemon/src/(commands/|main\\.ts$)', '\\.test\\.ts$'],
      },
      to: { path: '^packages/daemon/src/commands/' },
    },
    {
      name: 'admin-for-commands',
      severity: 'error',
      comment: 'admin/ is what the user and token commands do on the database; only commands/ uses it.',
      from: { path: '^packages/daemon/src/', pathNot: ['^packages/daemon/src/(admin|commands)/', '\\.test\\.ts$'] },
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
