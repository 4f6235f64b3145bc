import { afterEach, expect, it } from 'vitest';
import { replayAbuse } from '../support/abuse.js';
import { startDaemon, tempHome, type SpawnedDaemon } from '../support/binaries.js';

/**
 * Issue 11's memory abuse against the built daemon with its default limits: the issue's own
 * replay (400 streams that never read, on one read token), then the same spread over 12 tokens
 * so that the total limit is reached too. Then issue 24's: 400 such streams all admitted, without
 * large batches, whose memory must come back once they are gone. RSS is watched for 30 s after each.
 */
let home: ReturnType<typeof tempHome> | undefined;
let daemon: SpawnedDaemon | undefined;
afterEach(async () => {
  await daemon?.stop();
  home?.remove();
});

// Whether a paused client sees the daemon close its stream depends on the kernel queue in front
// of the FIN (e2e/memory.test.ts); with 400 full queues it often does not within the wait, so
// that row (`closed: null`) leaves it unchecked.
it.each([
  { tokens: 1, streams: 400, opened: 100, largeBatches: 16, peakMb: 400, closed: 100, args: [] },
  { tokens: 12, streams: 1200, opened: 250, largeBatches: 16, peakMb: 400, closed: 250, args: [] },
  { tokens: 4, streams: 400, opened: 400, largeBatches: 0, peakMb: 600, closed: null, args: ['--max-streams', '400'] },
])(
  'keeps RSS under $peakMb MB with $streams streams on $tokens token(s), and back under twice idle within 30 s',
  async ({ tokens, streams, opened, largeBatches, peakMb, closed, args }) => {
    home = tempHome('tapline-abuse-');
    daemon = await startDaemon(home.path, args);
    const report = await replayAbuse(daemon, { streams, tokens, ingestBatches: 20, largeBatches, observeMs: 30_000 });
    process.stdout.write(`abuse (${streams} streams, ${tokens} token(s)): ${JSON.stringify(report)}\n`);
    expect(report.peakMb).toBeLessThan(peakMb);
    expect(report.settledAfterMs).not.toBeNull();
    expect(report.afterMb).toBeLessThan(2 * report.idleMb);
    expect(report.streams).toEqual({
      opened,
      refused: streams - opened,
      closedByDaemon: closed ?? report.streams.closedByDaemon,
    });
    expect(report.largeBatches.other).toBe(0);
    expect(report.largeBatches.stored > 0).toBe(largeBatches > 0);
  },
);
