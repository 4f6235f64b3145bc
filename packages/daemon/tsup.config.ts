import { defineConfig } from 'tsup';

export default defineConfig({
  // The batch worker is its own bundle: a worker thread loads it by file (see batch-preparer.ts).
  entry: { taplined: 'src/main.ts', 'prepare-worker': 'src/http-traffic/prepare-pool-thread.ts' },
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
