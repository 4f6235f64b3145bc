import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { taplined: 'src/main.ts' },
  format: ['esm'],
  platform: 'node',
  target: 'node20',
  outDir: 'dist',
  clean: true,
  splitting: false,
  sourcemap: true,
  // Workspace packages are bundled in; better-sqlite3 is native and stays a dependency.
  noExternal: [/^@tapline\//],
  banner: { js: '#!/usr/bin/env node' },
});
