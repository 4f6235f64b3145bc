import { contract, type StatsAnswer } from '@tapline/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { composeBody, createSource, type Harness, manualClock, rawJson, startHarness } from '@tapline/testkit/daemon';
import { statInputsOf } from './backfill.js';
import { moveStats } from './move-stats.js';

/**
 * moveStats with a key on both sides: in one move, entries leave a route's minute row while others
 * arrive in the same row (two routes swapping entries of one minute, method, domain and status).
 * The old numbers must come out before the new go in, or the arrivals are overwritten; and the
 * maximum is taken again from what the row holds afterwards, the arrivals included.
 */
describe('moving route numbers when entries swap routes', () => {
  const clock = manualClock('2026-05-05T12:00:30.000Z');
  let h: Harness | undefined;
  afterEach(() => h?.close());

  it('ends with both sides exact: counts, and the maximum of what each row holds', async () => {
    h = await startHarness({
      clock,
      pruner: { start: false },
      routeBackfill: { start: false },
      routeReassignment: { start: false },
    });
    const { client, token } = await h.user();
    const sourceId = (await createSource(client)).id;
    const sent = [
      ['/alpha', 10],
      ['/alpha', 900],
      ['/beta', 500],
    ] as const;
    const stored = await rawJson(
      h,
      'POST',
      `/http-traffic-record/${sourceId}/batch`,
      token,
      sent.map(([pathnameUrl, elapsedTime]) => composeBody(sourceId, { pathnameUrl, elapsedTime, status: 200 })),
    );
    expect(stored.status, stored.text).toBe(201);
    const { db, dialect } = h.deps;
    const rows = await db
      .selectFrom('http_traffic')
      .select(['id', 'route_id', 'elapsed_time'])
      .where('traffic_source_id', '=', sourceId)
      .orderBy('elapsed_time')
      .execute();
    const entry = (elapsed: number) => {
      const row = rows.find((r) => r.elapsed_time === elapsed);
      if (!row?.route_id) throw new Error(`no routed entry of ${elapsed} ms`);
      return { id: row.id, traffic_source_id: sourceId, route_id: row.route_id };
    };
    const [fast, slow, beta] = [entry(10), entry(900), entry(500)];
    // The slowest /alpha entry goes to /beta's route and /beta's entry to /alpha's: /alpha keeps 10 and gets 500.
    await db.transaction().execute(async (trx) => {
      await trx.updateTable('http_traffic').set({ route_id: beta.route_id }).where('id', '=', slow.id).execute();
      await trx.updateTable('http_traffic').set({ route_id: slow.route_id }).where('id', '=', beta.id).execute();
      const removed = await statInputsOf(trx, { dialect }, [slow, beta]);
      const added = await statInputsOf(trx, { dialect }, [
        { ...slow, route_id: beta.route_id },
        { ...beta, route_id: slow.route_id },
      ]);
      await moveStats(trx, dialect, removed, added);
    });
    expect(fast.route_id).toBe(slow.route_id);
    const stats: StatsAnswer = await client.call(contract.getStats, {
      params: { trafficSourceId: sourceId },
      query: { since: '1h' },
    });
    expect(stats.data.map((g) => [g.route, g.count, g.max]).sort()).toEqual([
      ['/alpha', 2, 500],
      ['/beta', 1, 900],
    ]);
  });
});
