import type { HttpMethod } from '@tapline/shared';
import type { ExpressionBuilder } from 'kysely';
import type { SqlDialect } from '../db/dialect.js';
import type { Db, Executor } from '../db/open.js';
import type { DB } from '../db/schema.js';
import { countKeyOf, inCountKeyOrder } from '../http-traffic/writer.js';

/** What a prune removed, for the log line and `taplined prune`'s report. */
export interface Removed {
  entries: number;
  coreLogs: number;
  deliveries: number;
  pathnames: number;
  domains: number;
}

export const noneRemoved = (): Removed => ({ entries: 0, coreLogs: 0, deliveries: 0, pathnames: 0, domains: 0 });

export function addRemoved(total: Removed, more: Removed): Removed {
  total.entries += more.entries;
  total.coreLogs += more.coreLogs;
  total.deliveries += more.deliveries;
  total.pathnames += more.pathnames;
  total.domains += more.domains;
  return total;
}

/** One prune transaction: what it removed, and how long it held the database (BatchSizer). */
export type Batch = Removed & { heldMs: number };

/**
 * Removes one batch of a source's oldest entries created before `before`, with everything tied to
 * them, in one transaction. The entries are deleted with RETURNING, so the rollup is decremented
 * by exactly the rows this transaction removed, even with another pruner at work (PostgreSQL).
 * The time held counts from the transaction's first statement to its commit, without the wait for
 * the lock before it.
 */
export async function pruneBatch(
  db: Db,
  dialect: SqlDialect,
  sourceId: string,
  before: string,
  limit: number,
): Promise<Batch> {
  let began = 0;
  const removed = await db.transaction().execute((trx) => {
    began = performance.now();
    return removeOldest(trx, dialect, sourceId, before, limit);
  });
  return { ...removed, heldMs: performance.now() - began };
}

async function removeOldest(
  trx: Executor,
  dialect: SqlDialect,
  sourceId: string,
  before: string,
  limit: number,
): Promise<Removed> {
  const oldest = trx
    .selectFrom('http_traffic')
    .select('id')
    .where('traffic_source_id', '=', sourceId)
    .where('created_at', '<', before)
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit);
  // A write first: in SQLite it takes the write lock before any read, so a writer in another
  // process (the daemon, while `taplined prune` runs) makes it wait (busy_timeout), where a
  // read-then-write transaction would fail at once with "database is locked". Before the
  // entries go, too: core_logs' key would otherwise set the link to null and lose it.
  const coreLogs = await trx.deleteFrom('core_logs').where('http_traffic_id', 'in', oldest).executeTakeFirst();
  const ids = (await oldest.execute()).map((r) => r.id);
  if (ids.length === 0) return noneRemoved();
  // Attempts follow their delivery by its foreign key.
  const deliveries = await trx.deleteFrom('webhook_deliveries').where('http_traffic_id', 'in', ids).executeTakeFirst();
  const gone = await trx
    .deleteFrom('http_traffic')
    .where('id', 'in', ids)
    .returning(['id', 'traffic_source_id', 'pathname_id', 'domain_id', 'method', 'status'])
    .execute();
  // The exchange is in the entry's own row (compact storage): nothing else to delete.
  if (gone.length > 0) await subtractCounts(trx, gone);
  const names = await dropUnusedNames(trx, dialect, gone);
  return {
    entries: gone.length,
    coreLogs: Number(coreLogs.numDeletedRows),
    deliveries: Number(deliveries.numDeletedRows),
    ...names,
  };
}

type Gone = { traffic_source_id: string; pathname_id: string; domain_id: string; method: HttpMethod; status: number };

/**
 * The rollup minus the removed entries: atomic decrements, and keys that reach zero go. The rows
 * are decremented in their keys' sorted order, the order an ingest locks them in: a prune that
 * went in its entries' order held some while it waited for one an ingest held, and the ingest
 * then waited for the prune's (a deadlock on PostgreSQL, one of the two rolled back).
 */
async function subtractCounts(trx: Executor, gone: readonly Gone[]): Promise<void> {
  const keyed = new Map<string, { row: Gone; n: number }>();
  for (const g of gone) {
    const key = countKeyOf(g);
    const found = keyed.get(key);
    if (found) found.n += 1;
    else keyed.set(key, { row: g, n: 1 });
  }
  for (const { row, n } of inCountKeyOrder(keyed)) {
    await trx
      .updateTable('traffic_counts')
      .set((eb) => ({ count: eb('count', '-', n) }))
      .where('traffic_source_id', '=', row.traffic_source_id)
      .where('pathname_id', '=', row.pathname_id)
      .where('method', '=', row.method)
      .where('status', '=', row.status)
      .execute();
  }
  const sources = [...new Set(gone.map((g) => g.traffic_source_id))];
  const pathnames = [...new Set(gone.map((g) => g.pathname_id))];
  // Among the keys just decremented (the primary key's first two columns): by source alone it
  // read every key of the source while holding the lock (docs/performance.md#retention-and-the-pruner).
  await trx
    .deleteFrom('traffic_counts')
    .where('traffic_source_id', 'in', sources)
    .where('pathname_id', 'in', pathnames)
    .where('count', '<=', 0)
    .execute();
}

/**
 * Pathnames and domains that no entry names any more, with the check inside the statement that
 * deletes them, so a pathname that an ingest has used again is kept. On PostgreSQL the rows that
 * look unused are locked first, in a statement of their own: a concurrent ingest storing an entry
 * on one holds its row (the foreign key's check) until it commits, and a DELETE that waited for it
 * would go ahead by its own, older snapshot, and its cascade would then take the entry just
 * committed with it. Locked first, the DELETE is a later statement, whose snapshot sees that entry.
 * (SQLite's prune holds the one write lock from its first statement: no ingest writes meanwhile.)
 */
async function dropUnusedNames(
  trx: Executor,
  dialect: SqlDialect,
  gone: readonly Gone[],
): Promise<Pick<Removed, 'pathnames' | 'domains'>> {
  const pathnameIds = [...new Set(gone.map((g) => g.pathname_id))];
  const domainIds = [...new Set(gone.map((g) => g.domain_id))];
  if (pathnameIds.length === 0) return { pathnames: 0, domains: 0 };
  const pathnameUnused = (ids: readonly string[]) => (eb: ExpressionBuilder<DB, 'pathnames'>) =>
    eb.and([
      eb('id', 'in', ids),
      eb.not(
        eb.exists(eb.selectFrom('http_traffic as t').select('t.id').whereRef('t.pathname_id', '=', 'pathnames.id')),
      ),
    ]);
  const domainUnused = (ids: readonly string[]) => (eb: ExpressionBuilder<DB, 'domains'>) =>
    eb.and([
      eb('id', 'in', ids),
      eb.not(eb.exists(eb.selectFrom('http_traffic as t').select('t.id').whereRef('t.domain_id', '=', 'domains.id'))),
      eb.not(eb.exists(eb.selectFrom('pathnames as p').select('p.id').whereRef('p.domain_id', '=', 'domains.id'))),
    ]);
  // Those of `ids` that `remove` finds unused; with writers beside this one (PostgreSQL), of those
  // only the ones `lock` found unused and locked first (one that looked used then is kept,
  // whatever happens to it later).
  const dropUnused = async (
    ids: readonly string[],
    lock: (ids: readonly string[]) => Promise<{ id: string }[]>,
    remove: (ids: readonly string[]) => Promise<{ numDeletedRows: bigint }>,
  ): Promise<number> => {
    const locked = dialect.concurrentWriters ? (await lock(ids)).map((row) => row.id) : ids;
    return locked.length === 0 ? 0 : Number((await remove(locked)).numDeletedRows);
  };
  const pathnames = await dropUnused(
    pathnameIds,
    (ids) =>
      dialect
        .lockRows(trx.selectFrom('pathnames').select('id').where(pathnameUnused(ids)).orderBy('id'), 'wait')
        .execute(),
    (ids) => trx.deleteFrom('pathnames').where(pathnameUnused(ids)).executeTakeFirst(),
  );
  const domains = await dropUnused(
    domainIds,
    (ids) =>
      dialect.lockRows(trx.selectFrom('domains').select('id').where(domainUnused(ids)).orderBy('id'), 'wait').execute(),
    (ids) => trx.deleteFrom('domains').where(domainUnused(ids)).executeTakeFirst(),
  );
  return { pathnames, domains };
}
