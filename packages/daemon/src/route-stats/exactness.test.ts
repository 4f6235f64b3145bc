import fc from 'fast-check';
import { afterEach, beforeEach, describe, it } from 'vitest';
import { createSource, type Harness, manualClock, rawJson, startHarness } from '@tapline/testkit/daemon';
import type { TaplineClient } from '@tapline/shared';
import { bodyOf, expectExact, MINUTES, sentEntries, windows } from './exactness.fixture.js';

/**
 * Issue 26's exactness: for any window aligned to minutes, counts equal the entries' and each
 * percentile is within 1 % of the exact one, for skewed, bimodal and heavy-tailed latencies;
 * windows over three days read day, hour and minute rows together, and series points too.
 */
describe('statistics against the raw entries (property)', () => {
  const clock = manualClock('2026-05-07T12:00:00.000Z');
  let h: Harness;
  let client: TaplineClient;
  let token: string;
  beforeEach(async () => {
    h = await startHarness({ clock, pruner: { start: false }, routeBackfill: { start: false } });
    const user = await h.user();
    client = user.client;
    token = user.token;
  });
  afterEach(() => h.close());

  it('counts exactly and keeps percentiles within 1 % in any aligned window', async () => {
    await fc.assert(
      fc.asyncProperty(sentEntries, fc.array(windows, { minLength: 1, maxLength: 4 }), async (sent, asked) => {
        const sourceId = (await createSource(client)).id;
        // In several batches, so minutes are written by more than one transaction and merged.
        for (let i = 0; i < sent.length; i += 60) {
          const answer = await rawJson(
            h,
            'POST',
            `/http-traffic-record/${sourceId}/batch`,
            token,
            sent.slice(i, i + 60).map((s) => bodyOf(sourceId, s)),
          );
          if (answer.status !== 201) throw new Error(answer.text);
        }
        for (const window of [{ from: 0, to: MINUTES }, ...asked]) await expectExact(client, sourceId, sent, window);
      }),
      { numRuns: 12 },
    );
  }, 180_000);
});
