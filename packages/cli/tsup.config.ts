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
  noExternal: [/^@tapline\//],
  banner: { js: '#!/usr/bin/env node' },
});
