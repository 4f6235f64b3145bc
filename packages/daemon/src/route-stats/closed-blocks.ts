import { sql } from 'kysely';
import type { Db, Executor } from '../db/open.js';
import type { Segment } from './window.js';

/**
 * What a daemon remembers of closed windows (docs/decisions.md §21.9). A read of a window's totals
 * merges every stored row the window covers: a day of a busy source is some 30,000 minute and hour
 * rows, read and merged again at every refresh of a dashboard, a `tapline stats` or an alert's
 * check. Most of those rows no longer change: ingest writes the last few minutes. So the rows of
 * a part of a window that ended `CLOSED_MS` or more ago are read once, summed per route, method,
 * domain and status class, and kept here; a read takes them from here and reads only the last
 * minutes from the database.
 *
 * A write that changes older numbers (an entry created over `LATE_MS` ago, a rule's move, a
 * backfill) raises its source's counter in `route_stats_epochs`, in its own transaction. A read
 * asks the counter first and uses what it remembers only if it was read at the same count, so a
 * late entry written by any daemon on the database is in the next answer of every daemon. The gap
 * between the two (three minutes) is what a daemon's clock may lag another's, or an ingest
 * transaction take from its statistics to its commit, without a remembered block missing an entry.
 * Entries a client held back for a few minutes (an SDK's buffer, a retry) are not late: raising the
 * counter costs a statement in their transaction and every daemon's memory of the source.
 */
export const LATE_MS = 2 * 60_000;
export const CLOSED_MS = 5 * 60_000;

const MINUTE = 60_000;

/** At most this much is kept per database; the least recently used blocks go first. */
const BUDGET_BYTES = 32 * 1024 * 1024;

/** A source's counter of late writes: 0 until the first. */
export async function epochOf(db: Db, sourceId: string): Promise<number> {
  const row = await db
    .selectFrom('route_stats_epochs')
    .select('epoch')
    .where('traffic_source_id', '=', sourceId)
    .executeTakeFirst();
  return row === undefined ? 0 : Number(row.epoch);
}

/**
 * Raises the counters of `sourceIds`, in the writer's transaction: after its rows of statistics,
 * which every writer locks first, so that a writer holding a counter's row waits for no row.
 */
export async function raiseEpochs(trx: Executor, sourceIds: Iterable<string>): Promise<void> {
  for (const sourceId of [...new Set(sourceIds)].sort()) {
    await trx
      .insertInto('route_stats_epochs')
      .values({ traffic_source_id: sourceId, epoch: 1 })
      .onConflict((oc) => oc.column('traffic_source_id').doUpdateSet({ epoch: sql`route_stats_epochs.epoch + 1` }))
      .execute();
  }
}

/**
 * A part of a window cut into the blocks it is remembered by. Hour and day rows: the part as it
 * is (a day's read has one, the same for an hour). Minute rows: aligned blocks of 1, 2, 4, … 32
 * minutes (greedy from the left), so that as a window slides by a minute most of its blocks are
 * the ones it had, and only a block or two is read anew.
 */
export function blocksOf(segment: Segment): Segment[] {
  if (segment.span !== 1) return [segment];
  const blocks: Segment[] = [];
  const end = segment.until / MINUTE;
  for (let at = segment.since / MINUTE; at < end;) {
    let size = 1;
    while (at % (size * 2) === 0 && at + size * 2 <= end) size *= 2;
    blocks.push({ since: at * MINUTE, until: (at + size) * MINUTE, span: 1 });
    at += size;
  }
  return blocks;
}

/** A block's name in `ClosedBlocks`. */
export const blockKey = (block: Segment): string => `${block.span} ${block.since} ${block.until}`;

interface Kept<Value> {
  readonly epoch: number;
  readonly value: Value;
  readonly bytes: number;
}

/** Remembered blocks of one database, by source and name, least recently used first. */
export class ClosedBlocks<Value> {
  private readonly kept = new Map<string, Kept<Value>>();
  private bytes = 0;

  constructor(private readonly budget = BUDGET_BYTES) {}

  /** What was kept under `name` if it was read at `epoch`. */
  get(sourceId: string, epoch: number, name: string): Value | undefined {
    const key = `${sourceId} ${name}`;
    const found = this.kept.get(key);
    if (!found) return undefined;
    this.kept.delete(key);
    if (found.epoch !== epoch) {
      this.bytes -= found.bytes;
      return undefined;
    }
    this.kept.set(key, found);
    return found.value;
  }

  /** Keeps `value`, read at `epoch`, taking about `bytes`. */
  set(sourceId: string, epoch: number, name: string, value: Value, bytes: number): void {
    const key = `${sourceId} ${name}`;
    const old = this.kept.get(key);
    if (old) {
      this.kept.delete(key);
      this.bytes -= old.bytes;
    }
    if (bytes > this.budget) return;
    this.kept.set(key, { epoch, value, bytes });
    this.bytes += bytes;
    for (const [oldest, block] of this.kept) {
      if (this.bytes <= this.budget) break;
      this.kept.delete(oldest);
      this.bytes -= block.bytes;
    }
  }

  /** Bytes held (for tests and the budget). */
  get size(): number {
    return this.bytes;
  }
}
