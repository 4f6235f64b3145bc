import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'tsup';
import type { BatchWorker } from '@tapline/daemon';

/**
 * The batch worker bundled from today's source into a temporary folder, as the build does for
 * dist/ (a worker thread cannot load TypeScript). Everything is bundled in, so the bundle needs
 * no node_modules beside it. `minBytes: 0` sends every batch to it.
 */
export async function buildBatchWorker(): Promise<BatchWorker & { remove(): void }> {
  const outDir = mkdtempSync(join(tmpdir(), 'tapline-batch-worker-'));
  await build({
    config: false,
    entry: { 'prepare-worker': createRequire(import.meta.url).resolve('@tapline/daemon/prepare-pool-thread') },
    format: ['esm'],
    platform: 'node',
    target: 'node20',
    outDir,
    noExternal: [/.*/],
    silent: true,
  });
  return {
    file: pathToFileURL(join(outDir, 'prepare-worker.js')),
    minBytes: 0,
    remove: () => rmSync(outDir, { recursive: true, force: true }),
  };
}
