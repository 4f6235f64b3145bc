import { afterAll, beforeAll, expect, it } from 'vitest';
import { replayAbuse } from '../support/abuse.js';
import { startDaemon, tempHome, type SpawnedDaemon } from '../support/binaries.js';

/** Issue 11's memory abuse against the built daemon with its default limits. */
const home = tempHome('tapline-abuse-');
let daemon: SpawnedDaemon;
beforeAll(async () => {
  daemon = await startDaemon(home.path);
});
afterAll(async () => {
  await daemon?.stop();
  home.remove();
});

it('keeps RSS under 400 MB under the abuse, and back under twice idle within 30 s', async () => {
  const report = await replayAbuse(daemon, { streams: 400, ingestBatches: 20, largeBatches: 16 });
  process.stdout.write(`abuse: ${JSON.stringify(report)}\n`);
  expect(report.peakMb).toBeLessThan(400);
  expect(report.settledAfterMs).not.toBeNull();
  expect(report.streams).toEqual({ opened: 100, refused: 300 });
  expect(report.largeBatches.other).toBe(0);
  expect(report.largeBatches.stored).toBeGreaterThan(0);
});
