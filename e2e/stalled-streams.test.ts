import { afterAll, beforeAll, expect, it } from 'vitest';
import { replayAbuse } from './support/abuse.js';
import { startDaemon, tempHome, type SpawnedDaemon } from './support/binaries.js';

/**
 * Issue 24, problem 8: 400 event streams whose clients never read, all admitted (four read tokens,
 * `--max-streams 400`), while batches are composed so that each falls behind and is let go; then
 * the clients go away. RSS had settled at 2.4 × its idle figure: what had been made for the
 * streams stayed in V8's heap, since an idle daemon does not collect. It must be back under
 * twice idle within 30 s. The long version is e2e/soak/abuse.soak.ts.
 */
const home = tempHome('tapline-stalled-');
let daemon: SpawnedDaemon;
beforeAll(async () => {
  daemon = await startDaemon(home.path, ['--max-streams', '400']);
});
afterAll(async () => {
  await daemon?.stop();
  home.remove();
});

it('gives the memory of 400 stalled streams back: RSS under twice idle within 30 s of their going', async () => {
  const report = await replayAbuse(daemon, {
    streams: 400,
    tokens: 4,
    ingestBatches: 12,
    largeBatches: 0,
    observeMs: 0,
  });
  process.stdout.write(`stalled streams: ${JSON.stringify(report)}\n`);
  expect(report.streams.opened).toBe(400);
  expect(report.settledAfterMs, JSON.stringify(report)).not.toBeNull();
}, 240_000);
