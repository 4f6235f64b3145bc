import { until } from '@tapline/testkit';
import { createSource, expectRollupExact, type Harness, postRecords, startHarness } from '@tapline/testkit/daemon';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { countKeyOf } from '../http-traffic/writer.js';
import { pruneBatch } from './prune.js';

/**
 * A prune beside an ingest on PostgreSQL (one daemon's pruner and another's, or its own, ingest):
 * both lock `traffic_counts` rows, the ingest in its keys' sorted order (decisions §16.6). A prune
 * that decremented them in its entries' order held some while waiting for others that an ingest
 * held, which waited in turn for the prune's: a deadlock, one of the two rolled back.
 */
describe('a prune beside an ingest on PostgreSQL', () => {
  let h: Harness;
  afterEach(() => h.close());

  it("locks the count rows in the ingest's order, so an ingest holding some never deadlocks with it", async () => {
    h = await startHarness({ pruner: { start: false } });
    const { client } = await h.user();
    const source = await createSource(client);
    const { db } = h.deps;
    const paths = ['/a', '/b', '/c', '/d', '/e', '/f'];
    const first = [];
    for (const path of paths) first.push(...(await postRecords(client, source.id, 1, 0, { pathnameUrl: path })));
    const counts = await db
      .selectFrom('traffic_counts as c')
      .innerJoin('pathnames as p', 'p.id', 'c.pathname_id')
      .select(['c.traffic_source_id', 'c.pathname_id', 'c.method', 'c.status', 'p.value as pathname'])
      .where('c.traffic_source_id', '=', source.id)
      .execute();
    expect(counts).toHaveLength(paths.length);
    // The order an ingest locks them in.
    const ordered = counts.sort((a, b) => (countKeyOf(a) < countKeyOf(b) ? -1 : 1));
    // The entries to prune, oldest first in the reverse of that order; the first ones made newer.
    for (const count of [...ordered].reverse())
      await postRecords(client, source.id, 1, 0, { pathnameUrl: count.pathname });
    await db
      .updateTable('http_traffic')
      .set({ created_at: '2999-01-01T00:00:00.000Z' })
      .where('id', 'in', first)
      .execute();

    const deadlocks = async () =>
      Number(
        (
          await sql<{
            n: string;
          }>`select deadlocks as n from pg_stat_database where datname = current_database()`.execute(db)
        ).rows[0]?.n,
      );
    const waiting = async () =>
      Number(
        (
          await sql<{ n: string }>`select count(*) as n from pg_stat_activity
            where datname = current_database() and wait_event_type = 'Lock'`.execute(db)
        ).rows[0]?.n,
      );
    const before = await deadlocks();
    const touch = (trx: typeof db, key: (typeof ordered)[number]) =>
      trx
        .updateTable('traffic_counts')
        .set((eb) => ({ count: eb('count', '+', 0) }))
        .where('traffic_source_id', '=', key.traffic_source_id)
        .where('pathname_id', '=', key.pathname_id)
        .where('method', '=', key.method)
        .where('status', '=', key.status)
        .execute();
    let pruned: ReturnType<typeof pruneBatch> | undefined;
    // An ingest's transaction: its first count row, then (once the prune waits for it) the others.
    await db.transaction().execute(async (trx) => {
      const [firstKey, ...rest] = ordered;
      if (!firstKey) throw new Error('no count rows');
      await touch(trx, firstKey);
      pruned = pruneBatch(db, source.id, '2998-01-01T00:00:00.000Z', 100);
      await until(async () => (await waiting()) > 0, 'the prune waits for a count row');
      for (const key of rest) await touch(trx, key);
    });
    expect((await pruned)?.entries).toBe(paths.length);
    await expectRollupExact(db);
    // A backend reports its deadlocks once idle, within a second.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await deadlocks()).toBe(before);
  }, 60_000);
});
