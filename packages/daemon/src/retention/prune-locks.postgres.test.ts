import { until } from '@tapline/testkit';
import { createSource, expectRollupExact, type Harness, postRecords, startHarness } from '@tapline/testkit/daemon';
import { type Selectable, sql, type Transaction } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { postgresDialect } from '../db/dialect.js';
import type { DB } from '../db/schema.js';
import { countKeyOf, inCountKeyOrder } from '../http-traffic/writer.js';
import { pruneBatch } from './prune.js';

/** Backends of this database waiting for a lock. */
const lockWaits = async (db: Harness['deps']['db']) =>
  Number(
    (
      await sql<{ n: string }>`select count(*) as n from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock'`.execute(db)
    ).rows[0]?.n,
  );

/**
 * A prune beside an ingest on PostgreSQL (one daemon's pruner and another's, or its own, ingest;
 * decisions §16.6). Both lock `traffic_counts` rows, the ingest in its keys' sorted order: a prune
 * that decremented them in its entries' order held some while waiting for others that an ingest
 * held, which waited in turn for the prune's (a deadlock). And the prune drops the pathnames and
 * domains its entries leave unused: one that an ingest was storing an entry on meanwhile was dropped
 * by the prune's older snapshot, and the cascade took the entry just committed with it.
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
    const ordered = inCountKeyOrder(new Map(counts.map((count) => [countKeyOf(count), count])));
    // The entries to prune, oldest first in the reverse of that order; the first ones made newer.
    for (const count of [...ordered].reverse())
      await postRecords(client, source.id, 1, 0, { pathnameUrl: count.pathname });
    await db
      .updateTable('http_traffic')
      .set({ created_at: '2999-01-01T00:00:00.000Z' })
      .where('id', 'in', first)
      .execute();

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
      pruned = pruneBatch(db, postgresDialect, source.id, '2998-01-01T00:00:00.000Z', 100);
      await until(async () => (await lockWaits(db)) > 0, 'the prune waits for a count row');
      for (const key of rest) await touch(trx, key);
    });
    expect((await pruned)?.entries).toBe(paths.length);
    await expectRollupExact(db);
  }, 60_000);

  /**
   * One entry of its own pathname, made old; then `during`, an ingest's transaction, and in it
   * (once `during` has written) a prune of the old entry, until it waits for a lock.
   */
  async function pruneBeside(
    pathnameUrl: string,
    during: (trx: Transaction<DB>, old: Selectable<DB['http_traffic']>, sourceId: string) => Promise<void>,
  ) {
    h = await startHarness({ pruner: { start: false } });
    const { client } = await h.user();
    const sourceId = (await createSource(client)).id;
    const { db } = h.deps;
    const [oldId = ''] = await postRecords(client, sourceId, 1, 0, { pathnameUrl, method: 'GET', status: 200 });
    await db
      .updateTable('http_traffic')
      .set({ created_at: '2000-01-01T00:00:00.000Z' })
      .where('id', '=', oldId)
      .execute();
    const old = await db.selectFrom('http_traffic').selectAll().where('id', '=', oldId).executeTakeFirstOrThrow();
    let pruned: ReturnType<typeof pruneBatch> | undefined;
    await db.transaction().execute(async (trx) => {
      await during(trx, old, sourceId);
      pruned = pruneBatch(db, postgresDialect, sourceId, '2001-01-01T00:00:00.000Z', 100);
      await until(async () => (await lockWaits(db)) > 0, 'the prune waits for a lock');
    });
    return { db, old, removed: await pruned };
  }

  const NEW_ENTRY = '01900000-0000-7000-8000-000000000001';
  const NEW_PATHNAME = '01900000-0000-7000-8000-000000000002';
  const LATER = '2999-01-01T00:00:00.000Z';

  it('keeps a pathname, and the entry just stored with it, when an ingest uses it again while the prune drops it', async () => {
    // The ingest stores an entry on the same pathname under another count key: its foreign key
    // holds the pathname's row, while the prune removes the pathname's last old entry.
    const { db, old, removed } = await pruneBeside('/used-again', async (trx, old) => {
      const entry = { ...old, id: NEW_ENTRY, method: 'POST' as const, status: 201, created_at: LATER, stream_seq: 0 };
      await trx.insertInto('http_traffic').values(entry).execute();
    });
    expect(removed).toMatchObject({ entries: 1, pathnames: 0 });
    const kept = await db
      .selectFrom('http_traffic')
      .select(['id', 'pathname_id'])
      .where('id', '=', NEW_ENTRY)
      .execute();
    expect(kept).toEqual([{ id: NEW_ENTRY, pathname_id: old.pathname_id }]);
  }, 60_000);

  it('keeps a domain, and what an ingest just stored under it, when the ingest adds a pathname to it while the prune drops it', async () => {
    // The ingest adds a pathname to the domain (its foreign key holds the domain's row) and an
    // entry on it, while the prune removes the domain's last old entry and pathname.
    const { db, old, removed } = await pruneBeside('/only-old', async (trx, old, sourceId) => {
      const pathname = { id: NEW_PATHNAME, traffic_source_id: sourceId, domain_id: old.domain_id, value: '/new' };
      await trx
        .insertInto('pathnames')
        .values({ ...pathname, created_at: LATER })
        .execute();
      const entry = { ...old, id: NEW_ENTRY, pathname_id: NEW_PATHNAME, created_at: LATER, stream_seq: 0 };
      await trx.insertInto('http_traffic').values(entry).execute();
    });
    expect(removed).toMatchObject({ entries: 1, pathnames: 1, domains: 0 });
    const kept = await db.selectFrom('http_traffic').select(['id', 'domain_id']).where('id', '=', NEW_ENTRY).execute();
    expect(kept).toEqual([{ id: NEW_ENTRY, domain_id: old.domain_id }]);
  }, 60_000);
});
