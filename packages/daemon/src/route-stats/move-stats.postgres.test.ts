import { contract, type StatsAnswer } from '@tapline/shared';
import { until } from '@tapline/testkit';
import { composeBody, createSource, type Harness, manualClock, rawJson, startHarness } from '@tapline/testkit/daemon';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { statInputsOf } from './backfill.js';
import { moveStats } from './move-stats.js';
import { addStats, lateBeforeAt } from './writer.js';

/**
 * PostgreSQL: a row that a move empties and fills again while an ingest waits on its lock. Deleted
 * and inserted anew, the waiter would find the old row gone, not see the new one, and overwrite it
 * with its own numbers alone (the arrivals lost); emptied in place, the waiter reads it as left.
 */
describe('moving route numbers while an ingest waits on the same row', () => {
  const clock = manualClock('2026-05-05T12:00:30.000Z');
  let h: Harness | undefined;
  afterEach(() => h?.close());

  it('keeps both the arrivals and the waiting ingest’s entry', async () => {
    h = await startHarness({
      clock,
      pruner: { start: false },
      routeBackfill: { start: false },
      routeReassignment: { start: false },
    });
    const harness = h;
    const { client, token } = await harness.user();
    const sourceId = (await createSource(client)).id;
    const compose = (pathnameUrl: string, elapsedTime: number) =>
      rawJson(
        harness,
        'POST',
        `/http-traffic-record/${sourceId}`,
        token,
        composeBody(sourceId, { pathnameUrl, elapsedTime, status: 200 }),
      );
    for (const [path, ms] of [
      ['/alpha', 10],
      ['/beta', 500],
    ] as const)
      expect((await compose(path, ms)).status).toBe(201);
    const { db, dialect } = harness.deps;
    const rows = await db
      .selectFrom('http_traffic')
      .select(['id', 'route_id', 'elapsed_time'])
      .where('traffic_source_id', '=', sourceId)
      .execute();
    const entry = (elapsed: number) => {
      const row = rows.find((r) => r.elapsed_time === elapsed);
      if (!row?.route_id) throw new Error(`no routed entry of ${elapsed} ms`);
      return { id: row.id, traffic_source_id: sourceId, route_id: row.route_id };
    };
    const [alpha, beta] = [entry(10), entry(500)];
    const waiting = async () =>
      Number(
        (
          await sql<{
            n: string;
          }>`select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(
            db,
          )
        ).rows[0]?.n ?? 0,
      );
    let late: Promise<{ status: number }> | undefined;
    await db.transaction().execute(async (trx) => {
      // The minute rows held first, as moveStats holds them, so that the ingest below queues on them.
      await sql`select 1 from route_stats where traffic_source_id = ${sourceId} for update`.execute(trx);
      late = compose('/alpha', 20);
      await until(async () => (await waiting()) > 0, 'the ingest to wait on the held rows');
      await trx.updateTable('http_traffic').set({ route_id: beta.route_id }).where('id', '=', alpha.id).execute();
      await trx.updateTable('http_traffic').set({ route_id: alpha.route_id }).where('id', '=', beta.id).execute();
      const removed = await statInputsOf(trx, { dialect }, [alpha, beta]);
      const added = await statInputsOf(trx, { dialect }, [
        { ...alpha, route_id: beta.route_id },
        { ...beta, route_id: alpha.route_id },
      ]);
      await moveStats(trx, dialect, removed, added);
    });
    expect((await late)?.status).toBe(201);
    const stats: StatsAnswer = await client.call(contract.getStats, {
      params: { trafficSourceId: sourceId },
      query: { since: '1h' },
    });
    expect(stats.data.map((g) => [g.route, g.count, g.max]).sort()).toEqual([
      ['/alpha', 2, 500],
      ['/beta', 1, 10],
    ]);
  });
  it('keeps what two writers waiting on a row add when the move deletes it', async () => {
    h = await startHarness({
      clock,
      pruner: { start: false },
      routeBackfill: { start: false },
      routeReassignment: { start: false },
    });
    const harness = h;
    const { client, token } = await harness.user();
    const sourceId = (await createSource(client)).id;
    const compose = (pathnameUrl: string, elapsedTime: number) =>
      rawJson(
        harness,
        'POST',
        `/http-traffic-record/${sourceId}`,
        token,
        composeBody(sourceId, { pathnameUrl, elapsedTime, status: 200 }),
      );
    for (const [path, ms] of [
      ['/alpha', 10],
      ['/gamma', 500],
    ] as const)
      expect((await compose(path, ms)).status).toBe(201);
    const { db, dialect } = harness.deps;
    const rows = await db
      .selectFrom('http_traffic')
      .select(['id', 'route_id', 'elapsed_time'])
      .where('traffic_source_id', '=', sourceId)
      .execute();
    const entry = (elapsed: number) => {
      const row = rows.find((r) => r.elapsed_time === elapsed);
      if (!row?.route_id) throw new Error(`no routed entry of ${elapsed} ms`);
      return { id: row.id, traffic_source_id: sourceId, route_id: row.route_id };
    };
    const [alpha, gamma] = [entry(10), entry(500)];
    const alphaInputs = await statInputsOf(db, { dialect }, [alpha]);
    const waiting = async () =>
      Number(
        (
          await sql<{
            n: string;
          }>`select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(
            db,
          )
        ).rows[0]?.n ?? 0,
      );
    let late: Promise<{ status: number }> | undefined;
    let direct: Promise<void> | undefined;
    await db.transaction().execute(async (trx) => {
      await sql`select 1 from route_stats where traffic_source_id = ${sourceId} for update`.execute(trx);
      // Two writers queue on /alpha's minute row: an ingest, and another transaction adding the same kind of entry.
      late = compose('/alpha', 20);
      direct = db.transaction().execute((other) => addStats(other, dialect, alphaInputs, lateBeforeAt(Date.now())));
      await until(async () => (await waiting()) > 1, 'both writers to wait on the held rows');
      // The only /alpha entry moves to /gamma: /alpha's rows are left empty with nothing arriving, and go.
      await trx.updateTable('http_traffic').set({ route_id: gamma.route_id }).where('id', '=', alpha.id).execute();
      await moveStats(
        trx,
        dialect,
        await statInputsOf(trx, { dialect }, [alpha]),
        await statInputsOf(trx, { dialect }, [{ ...alpha, route_id: gamma.route_id }]),
      );
    });
    expect((await late)?.status).toBe(201);
    await direct;
    const stats: StatsAnswer = await client.call(contract.getStats, {
      params: { trafficSourceId: sourceId },
      query: { since: '1h' },
    });
    expect(stats.data.map((g) => [g.route, g.count]).sort()).toEqual([
      ['/alpha', 2],
      ['/gamma', 2],
    ]);
  });
});
