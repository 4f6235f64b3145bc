import { afterAll, beforeAll, expect, it } from 'vitest';
import { replayAbuse } from './support/abuse.js';
import { startDaemon, tempHome, type SpawnedDaemon } from './support/binaries.js';

/**
 * The short replay of issue 11's memory abuse (the long one is e2e/soak/abuse.soak.ts): streams
 * that never read, past the per-token and the total limit, then concurrent 15 MiB batches.
 * It asserts on memory and on what was refused, never on how long anything took.
 */
const home = tempHome('tapline-memory-');
let daemon: SpawnedDaemon;
beforeAll(async () => {
  daemon = await startDaemon(home.path);
});
afterAll(async () => {
  await daemon?.stop();
  home.remove();
});

it('keeps RSS under 400 MB under never-reading streams and large batches, and gives it back', async () => {
  const report = await replayAbuse(daemon, {
    streams: 150,
    tokens: 1,
    ingestBatches: 10,
    largeBatches: 3,
    observeMs: 0,
  });
  expect(report.peakMb, JSON.stringify(report)).toBeLessThan(400);
  expect(report.settledAfterMs, JSON.stringify(report)).not.toBeNull();
  // Whether a paused client sees its socket close depends on the kernel: the daemon's FIN waits
  // behind up to ~4 MB it queued toward a client that reads nothing. That the daemon lets such a
  // stream go promptly is asserted where it can be seen, in stream-limits.test.ts (in-process).
  expect({ opened: report.streams.opened, refused: report.streams.refused }, JSON.stringify(report)).toEqual({
    opened: 100,
    refused: 50,
  });
  expect(report.largeBatches.other).toBe(0);
  expect(report.largeBatches.stored).toBeGreaterThan(0);
}, 120_000);
