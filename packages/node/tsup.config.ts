import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts' },
  // Express apps are still often CommonJS: ship both, with types.
  format: ['esm', 'cjs'],
  platform: 'node',
  target: 'node20',
  outDir: 'dist',
  clean: true,
  sourcemap: true,
  // @tapline/shared is a workspace package that is never published on its own: bundle it (and
  // what it needs, zod) so that `@tapline/node` installs with no dependencies at all.
  noExternal: [/^@tapline\//, 'zod'],
  // The public types use node:http and this package's own interfaces only, so they stand alone.
  dts: true,
});
