import type { SqlDialect } from '../db/dialect.js';
import type { Db } from '../db/open.js';
import { addRemoved, noneRemoved, pruneBatch, type Removed } from './prune.js';
import { BatchSizer, nextTurn, type Pause } from './pace.js';
import type { StorageOps } from './storage.js';

/**
 * Prune transactions one after another, each sized by the one before (BatchSizer), counted into
 * `total`, and followed by `pause`.
 */
function pacedBatches(db: Db, dialect: SqlDialect, pause: Pause, total: Removed) {
  const sizer = new BatchSizer();
  return {
    get size() {
      return sizer.size;
    },
    /** Runs one batch of at most `limit` entries; resolves with how many it removed. */
    async next(sourceId: string, before: string, limit: number): Promise<number> {
      const batch = await pruneBatch(db, dialect, sourceId, before, limit);
      addRemoved(total, batch);
      sizer.took(batch.entries, batch.heldMs);
      // After the last batch too: the vacuum (or the next source) would take the lock again at once.
      if (batch.entries > 0) await pause(batch.heldMs);
      return batch.entries;
    },
  };
}

/** Every entry created before `before` (of one source, or all), batch by batch, with `pause` between two. */
export async function pruneBefore(
  db: Db,
  dialect: SqlDialect,
  before: string,
  options: { sourceId?: string | undefined; signal?: AbortSignal; pause?: Pause } = {},
): Promise<Removed> {
  const pause = options.pause ?? nextTurn;
  const sources = options.sourceId
    ? [options.sourceId]
    : (await db.selectFrom('traffic_sources').select('id').execute()).map((s) => s.id);
  const total = noneRemoved();
  const batches = pacedBatches(db, dialect, pause, total);
  for (const sourceId of sources) {
    for (;;) {
      if (options.signal?.aborted) return total;
      const limit = batches.size;
      if ((await batches.next(sourceId, before, limit)) < limit) break;
    }
  }
  return total;
}

const END_OF_TIME = '9999-12-31T23:59:59.999Z';

/** The source whose oldest entry is the oldest of all, read from each source's newest-first index. */
async function oldestSource(db: Db): Promise<{ id: string; oldest: string } | undefined> {
  const rows = await db
    .selectFrom('traffic_sources as s')
    .select((eb) => [
      's.id',
      eb
        .selectFrom('http_traffic as t')
        .select((e) => e.fn.min('t.created_at').as('m'))
        .whereRef('t.traffic_source_id', '=', 's.id')
        .as('oldest'),
    ])
    .execute();
  let best: { id: string; oldest: string } | undefined;
  for (const r of rows) if (r.oldest && (!best || r.oldest < best.oldest)) best = { id: r.id, oldest: r.oldest };
  return best;
}

/** The database's oldest entry, or null when it holds none: one index probe per source. */
export async function oldestEntryAt(db: Db): Promise<string | null> {
  return (await oldestSource(db))?.oldest ?? null;
}

/** Entries in the rollup: a sum over a few hundred rows, never a scan of the traffic. */
async function entryCount(db: Db): Promise<number> {
  const row = await db
    .selectFrom('traffic_counts')
    .select((eb) => eb.fn.sum<number | string | null>('count').as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n ?? 0);
}

/**
 * The oldest entries of all sources, until the bytes in use are down to `target`. The number to
 * remove is also capped by the share of the entries that the excess is: in PostgreSQL the size on
 * disk does not fall as rows go (autovacuum makes the space reusable), and in SQLite the log grows
 * with the deletes, so the measure alone could empty the database.
 */
export async function pruneToSize(
  db: Db,
  dialect: SqlDialect,
  ops: StorageOps,
  target: number,
  options: { signal?: AbortSignal; pause?: Pause } = {},
): Promise<Removed> {
  const { signal, pause = nextTurn } = options;
  const total = noneRemoved();
  const used = await ops.usedBytes();
  if (used <= target) return total;
  const cap = Math.ceil(((await entryCount(db)) * (used - target)) / used);
  const batches = pacedBatches(db, dialect, pause, total);
  while (total.entries < cap && !signal?.aborted) {
    const source = await oldestSource(db);
    if (!source) break;
    // The last instant ISO 8601 writes with four digits: the batch is simply the source's oldest entries.
    const removed = await batches.next(source.id, END_OF_TIME, Math.min(batches.size, cap - total.entries));
    if (removed === 0 || (await ops.usedBytes()) <= target) break;
  }
  return total;
}
