import { contract } from '@tapline/shared';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  composeBody,
  createSource,
  type FreshDatabase,
  freshDatabase,
  type Harness,
  manualClock,
  rawJson,
  startHarness,
} from '@tapline/testkit/daemon';
import { bodyOf, expectExact, MINUTES, sentEntries } from './exactness.fixture.js';

/**
 * Several daemons writing the same minutes at once (PostgreSQL only): the minute rows are read
 * and rewritten under row locks, so no daemon's additions are lost (docs/decisions.md §21.2).
 */
describe('statistics written by two daemons on one database', () => {
  const clock = manualClock('2026-05-07T12:00:00.000Z');
  let fresh: FreshDatabase;
  let a: Harness;
  let b: Harness;
  beforeEach(async () => {
    fresh = await freshDatabase({ migrated: true });
    a = await startHarness({
      database: fresh.locator,
      clock,
      pruner: { start: false },
      routeBackfill: { start: false },
    });
    b = await startHarness({
      database: fresh.locator,
      clock,
      pruner: { start: false },
      routeBackfill: { start: false },
    });
  });
  afterEach(async () => {
    await a.close();
    await b.close();
    await fresh.drop();
  });

  it('stay exact when both daemons add to the same minutes concurrently', async () => {
    const user = await a.user();
    await fc.assert(
      fc.asyncProperty(sentEntries, async (sent) => {
        const sourceId = (await createSource(user.client)).id;
        // Small batches, all at once, alternately to each daemon: their transactions overlap on the same minutes.
        const sends: Promise<unknown>[] = [];
        for (let i = 0; i < sent.length; i += 8) {
          const daemon = (i / 8) % 2 === 0 ? a : b;
          const items = sent.slice(i, i + 8).map((s) => bodyOf(sourceId, s));
          sends.push(
            rawJson(daemon, 'POST', `/http-traffic-record/${sourceId}/batch`, user.token, items).then((r) => {
              if (r.status !== 201) throw new Error(r.text);
            }),
          );
        }
        await Promise.all(sends);
        await expectExact(user.client, sourceId, sent, { from: 0, to: MINUTES });
        await expectExact(user.client, sourceId, sent, { from: 0, to: MINUTES, bucket: '1h' });
      }),
      { numRuns: 4 },
    );
  }, 180_000);

  // Single composes are stored by the statements of decisions §20.22, several of them joined into
  // one round trip: the lock order and the stream's numbers must hold across the two daemons.
  it('keep every single compose, its stream number and exact numbers, without a deadlock, when both daemons take them at once', async () => {
    const user = await a.user();
    const deadlocks = async () =>
      Number(
        (
          await sql<{
            n: string;
          }>`select deadlocks as n from pg_stat_database where datname = current_database()`.execute(a.deps.db)
        ).rows[0]?.n,
      );
    const before = await deadlocks();
    await fc.assert(
      fc.asyncProperty(sentEntries, async (sent) => {
        const sourceId = (await createSource(user.client)).id;
        await Promise.all(
          sent.map(async (s, i) => {
            const answer = await rawJson(
              i % 2 === 0 ? a : b,
              'POST',
              `/http-traffic-record/${sourceId}`,
              user.token,
              bodyOf(sourceId, s),
            );
            if (answer.status !== 201) throw new Error(answer.text);
          }),
        );
        const { rows } = await sql<{
          seq: number;
        }>`select stream_seq as seq from http_traffic where traffic_source_id = ${sourceId} order by stream_seq`.execute(
          a.deps.db,
        );
        expect(rows).toHaveLength(sent.length);
        const seqs = rows.map((r) => Number(r.seq));
        expect(new Set(seqs).size).toBe(sent.length);
        const counted = await sql<{
          n: string;
        }>`select coalesce(sum(count), 0) as n from traffic_counts where traffic_source_id = ${sourceId}`.execute(
          a.deps.db,
        );
        expect(Number(counted.rows[0]?.n)).toBe(sent.length);
        await expectExact(user.client, sourceId, sent, { from: 0, to: MINUTES });
        await expectExact(user.client, sourceId, sent, { from: 0, to: MINUTES, bucket: '1h' });
        // Minutes 1 to 4: from the minute rows alone.
        await expectExact(user.client, sourceId, sent, { from: 1, to: 5 });
      }),
      { numRuns: 4 },
    );
    // Every number handed out once, none skipped, across both daemons and every run.
    const all = await sql<{ seq: number }>`select stream_seq as seq from http_traffic order by stream_seq`.execute(
      a.deps.db,
    );
    const numbers = all.rows.map((r) => Number(r.seq));
    expect(numbers).toEqual(numbers.map((_, i) => (numbers[0] ?? 0) + i));
    // A backend reports its deadlocks once idle, within a second.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await deadlocks()).toBe(before);
  }, 180_000);

  // What one daemon remembers of a closed window (closed-blocks.ts): the source's counter of late
  // writes in the database tells it of a late entry written through the other.
  it('answer from one daemon what the other wrote late into a window it remembered', async () => {
    const user = await a.user();
    const sourceId = (await createSource(user.client)).id;
    const send = async (daemon: Harness, startedAt: string, elapsedTime: number) => {
      const body = [composeBody(sourceId, { pathnameUrl: '/users/1', startedAt, elapsedTime })];
      const answer = await rawJson(daemon, 'POST', `/http-traffic-record/${sourceId}/batch`, user.token, body);
      expect(answer.status, answer.text).toBe(201);
    };
    const total = async () =>
      (
        await user.client.call(contract.getStats, { params: { trafficSourceId: sourceId }, query: { since: '3h' } })
      ).data.map((g) => [g.count, g.max]);
    await send(a, '2026-05-07T10:15:00.000Z', 10);
    await send(a, '2026-05-07T11:30:00.000Z', 20);
    expect(await total()).toEqual([[2, 20]]);
    await send(b, '2026-05-07T10:16:00.000Z', 700);
    await send(b, '2026-05-07T11:31:00.000Z', 5);
    expect(await total()).toEqual([[4, 700]]);
  }, 60_000);
});
