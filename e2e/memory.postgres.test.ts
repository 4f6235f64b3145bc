import { type Cluster, startCluster } from '@tapline/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { replayAbuse } from './support/abuse.js';
import { adminOn } from './support/cluster.js';
import { startDaemon, tempHome, type SpawnedDaemon } from './support/binaries.js';

/**
 * memory.test.ts's replay on PostgreSQL, where a prepared large batch hands its place at the
 * large-batch gate to the next body while it is stored (docs/decisions.md §20.28): one batch read
 * and prepared beside one stored, and issue 11's bound holds with both.
 */
const home = tempHome('tapline-memory-pg-');
let cluster: Cluster | undefined;
let daemon: SpawnedDaemon | undefined;
beforeAll(async () => {
  cluster = await startCluster();
  daemon = await startDaemon(home.path, ['--db', cluster.url]);
}, 60_000);
afterAll(async () => {
  await daemon?.stop();
  await cluster?.stop();
  home.remove();
});

it('keeps RSS under 400 MB under never-reading streams and large batches on PostgreSQL, and gives it back', async () => {
  if (!daemon) throw new Error('no daemon');
  const db = cluster?.url ?? '';
  const plan = { streams: 150, tokens: 1, ingestBatches: 10, largeBatches: 3, observeMs: 0 };
  const report = await replayAbuse(daemon, plan, (args) => adminOn(db, args));
  if (process.env.MEMORY_REPORT) process.stderr.write(`${JSON.stringify(report)}\n`);
  expect(report.peakMb, JSON.stringify(report)).toBeLessThan(400);
  expect(report.settledAfterMs, JSON.stringify(report)).not.toBeNull();
  expect(report.largeBatches.other).toBe(0);
  expect(report.largeBatches.stored).toBeGreaterThan(0);
}, 120_000);
