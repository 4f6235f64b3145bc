import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts' },
  // Express apps are still often CommonJS: ship both, with types.
  format: ['esm', 'cjs'],
  platform: 'node',
  target: 'node20',
  outDir: 'dist',
  clean: true,
  // No source maps: the bundle is plain, unminified code, and a map with its sources would be
  // bigger than the code (issue 10: each file under 60 KB).
  // @tapline/shared is a workspace package that is never published on its own: bundle the part
  // the middleware uses (the capture code and the HTTP client; shared's `sideEffects: false` lets
  // the rest, zod and the contract included, fall away), so it installs with no dependencies.
  noExternal: [/^@tapline\//],
  // The public types use node:http and this package's own interfaces only, so they stand alone.
  dts: true,
});
