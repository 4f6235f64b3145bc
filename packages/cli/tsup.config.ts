import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { tapline: 'src/main.ts' },
  format: ['esm'],
  platform: 'node',
  target: 'node20',
  outDir: 'dist',
  clean: true,
  // The terminal UI is a separate chunk, loaded only by `tapline ui`, to keep start-up fast.
  splitting: true,
  sourcemap: true,
  // Bundling the start-up path's packages saves ~100 ms of module resolution per run (bench:
  // cli-startup). commander is CommonJS, so the bundle gets a `require` for its node: imports.
  noExternal: [/^@tapline\//, 'zod', /^zod\//, 'commander', 'picocolors', 'ms'],
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __taplineRequire } from 'node:module';\nconst require = __taplineRequire(import.meta.url);",
  },
});
