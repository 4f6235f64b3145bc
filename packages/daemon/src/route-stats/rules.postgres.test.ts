import fc from 'fast-check';
import { afterEach, beforeEach, describe, it } from 'vitest';
import {
  createSource,
  type FreshDatabase,
  freshDatabase,
  type Harness,
  manualClock,
  rawJson,
  startHarness,
} from '@tapline/testkit/daemon';
import { bodyOf, expectExact, MINUTES, type Sent, sentEntries } from './exactness.fixture.js';

/**
 * A rule added while two daemons on one PostgreSQL database ingest into the same minutes and both
 * run the reassignment job: entries stored before the rule move, those stored during it are
 * filed under it at ingest, and the numbers of both routes stay exact.
 */
describe('route rules with two daemons on one database', () => {
  // After the fixture's three days: ingest refuses entries more than 5 minutes ahead of it.
  const clock = manualClock('2026-05-07T12:00:00.000Z');
  let fresh: FreshDatabase;
  let a: Harness;
  let b: Harness;
  beforeEach(async () => {
    fresh = await freshDatabase({ migrated: true });
    const options = {
      database: fresh.locator,
      clock,
      pruner: { start: false },
      routeBackfill: { start: false },
      routeReassignment: { start: false },
    } as const;
    a = await startHarness(options);
    b = await startHarness(options);
  });
  afterEach(async () => {
    await a.close();
    await b.close();
    await fresh.drop();
  });

  it('moves stored entries exactly while both daemons ingest and run the job at once', async () => {
    const user = await a.user();
    await fc.assert(
      fc.asyncProperty(sentEntries, async (sent) => {
        const sourceId = (await createSource(user.client)).id;
        const send = (daemon: Harness, part: readonly Sent[]) =>
          rawJson(
            daemon,
            'POST',
            `/http-traffic-record/${sourceId}/batch`,
            user.token,
            part.map((s) => bodyOf(sourceId, s)),
          ).then((r) => {
            if (r.status !== 201) throw new Error(r.text);
          });
        const half = Math.ceil(sent.length / 2);
        await send(a, sent.slice(0, half));
        const added = await rawJson(a, 'POST', `/routes/${sourceId}/rules`, user.token, { template: '/users/1{rest}' });
        if (added.status !== 201) throw new Error(added.text);
        const later = sent.slice(half);
        await Promise.all([
          a.routeReassignment.runNow(),
          b.routeReassignment.runNow(),
          ...Array.from({ length: Math.ceil(later.length / 8) }, (_, i) =>
            send(i % 2 === 0 ? a : b, later.slice(i * 8, i * 8 + 8)),
          ),
        ]);
        await a.routeReassignment.runNow();
        const moved = sent.map((s) => (/^\/users\/1\d+$/.test(s.path) ? { ...s, template: '/users/1{rest}' } : s));
        // Two whole hours, a whole UTC day, and the three days (day, hour and minute rows together).
        for (const window of [
          { from: 0, to: 120 },
          { from: 120, to: 120 + 1440 },
          { from: 0, to: MINUTES },
        ])
          await expectExact(user.client, sourceId, moved, window);
      }),
      { numRuns: 4 },
    );
  }, 180_000);
});
