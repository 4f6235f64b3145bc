import { afterEach, beforeEach, expect, it } from 'vitest';
import { replayAbuse } from '../support/abuse.js';
import { startDaemon, tempHome, type SpawnedDaemon } from '../support/binaries.js';

/**
 * Issue 11's memory abuse against the built daemon with its default limits: the issue's own
 * replay (400 streams that never read, on one read token), then the same spread over 12 tokens
 * so that the total limit is reached too. RSS is watched for 30 s after each.
 */
let home: ReturnType<typeof tempHome>;
let daemon: SpawnedDaemon;
beforeEach(async () => {
  home = tempHome('tapline-abuse-');
  daemon = await startDaemon(home.path);
});
afterEach(async () => {
  await daemon?.stop();
  home.remove();
});

it.each([
  { tokens: 1, streams: 400, opened: 100 },
  { tokens: 12, streams: 1200, opened: 250 },
])('keeps RSS under 400 MB with $streams streams on $tokens token(s), and back under twice idle within 30 s', async ({ tokens, streams, opened }) => {
  const report = await replayAbuse(daemon, { streams, tokens, ingestBatches: 20, largeBatches: 16, observeMs: 30_000 });
  process.stdout.write(`abuse (${tokens} token(s)): ${JSON.stringify(report)}\n`);
  expect(report.peakMb).toBeLessThan(400);
  expect(report.settledAfterMs).not.toBeNull();
  expect(report.afterMb).toBeLessThan(2 * report.idleMb);
  expect(report.streams).toEqual({ opened, refused: streams - opened, closedByDaemon: opened });
  expect(report.largeBatches.other).toBe(0);
  expect(report.largeBatches.stored).toBeGreaterThan(0);
});
