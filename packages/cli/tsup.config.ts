import { defineConfig, type Options } from 'tsup';

// The build script empties dist/ once: the two builds run side by side and must not clean each other away.
const common: Options = {
  format: ['esm'],
  platform: 'node',
  target: 'node20',
  outDir: 'dist',
  clean: false,
  sourcemap: true,
};

export default defineConfig([
  {
    ...common,
    entry: { tapline: 'src/main.ts' },
    // The terminal UI is a separate chunk, loaded only by `tapline ui`, to keep start-up fast.
    splitting: true,
    // Bundling the start-up path's packages saves ~100 ms of module resolution per run (bench:
    // cli-startup). commander is CommonJS, so the bundle gets a `require` for its node: imports.
    noExternal: [/^@tapline\//, 'zod', /^zod\//, 'commander', 'picocolors', 'ms'],
    banner: {
      js: "#!/usr/bin/env node\nimport { createRequire as __taplineRequire } from 'node:module';\nconst require = __taplineRequire(import.meta.url);",
    },
  },
  // The proxy's sending thread (src/proxy/sender.ts) is loaded by file: a bundle of its own, so
  // that the CLI's start still reads one chunk, not the chunks a split shared with it would make.
  { ...common, entry: { 'proxy-sender': 'src/proxy/send-thread.ts' }, splitting: false, noExternal: [/^@tapline\//] },
]);
