import type { TrafficSource } from '@tapline/shared';
import { isConflict } from '../db/conflict.js';
import { isDatabaseUnavailable } from '../db/unavailable.js';
import type { KnownNames } from '../http-traffic/names.js';
import type { NewTrafficRow } from '../http-traffic/table.js';
import type { StatInput } from '../route-stats/rollup.js';
import type { StoredEntry } from '../stream/bus.js';
import type { PreparedRecord } from './prepare.js';
import { type Filed, rowsOf } from './rows.js';

/**
 * The group commit's decisions, pure: how many waiting requests the next group takes, the rows
 * of a group, and what to do when its transaction failed. ingest.ts runs the transaction and
 * owns the queue (docs/decisions.md §26.9).
 */

/** Records of one request (a single compose or a batch), stored all or none. */
export interface Waiting {
  readonly source: TrafficSource;
  readonly records: readonly PreparedRecord[];
  resolve(entries: StoredEntry[]): void;
  reject(error: unknown): void;
}

/** A group stops taking requests at this many records (a few batches of 1,000); the rest go next. */
export const MAX_GROUP_RECORDS = 5_000;

/** Deadlocks in a row before a group's requests are failed one by one. */
export const MAX_CONFLICT_RETRIES = 3;

/** How many of the waiting requests the next group takes: the first, then more while under MAX_GROUP_RECORDS. */
export function groupLength(
  waiting: readonly { readonly records: readonly unknown[] }[],
  max = MAX_GROUP_RECORDS,
): number {
  let records = 0;
  let taken = 0;
  while (taken < waiting.length && (taken === 0 || records < max)) records += waiting[taken++]?.records.length ?? 0;
  return taken;
}

/** A group's rows in input order: per request its entries, and all of them for the writer, the hooks and the numbers. */
export interface GroupRows {
  readonly results: StoredEntry[][];
  readonly all: StoredEntry[];
  readonly traffic: NewTrafficRow[];
  readonly stats: StatInput[];
}

export function groupRows(
  group: readonly Pick<Waiting, 'source' | 'records'>[],
  known: KnownNames,
  routeOf: (sourceId: string, record: PreparedRecord) => Filed['route'],
  receivedAt: string,
  ids: { readonly next: () => string; readonly stats: boolean },
): GroupRows {
  const rows: GroupRows = { results: [], all: [], traffic: [], stats: [] };
  for (const { source, records } of group) {
    const stored: StoredEntry[] = [];
    for (const record of records) {
      const domainId = known.domain(source.id, record.domain);
      const filed = {
        domainId,
        pathnameId: known.pathname(domainId, record.pathname),
        route: routeOf(source.id, record),
      };
      const { row, entry, stat } = rowsOf(source.id, record, filed, receivedAt, ids.next(), ids.stats);
      rows.traffic.push(row);
      if (stat) rows.stats.push(stat);
      stored.push(entry);
      rows.all.push(entry);
    }
    rows.results.push(stored);
  }
  return rows;
}

/**
 * A group filed by rules that its own read, back later, found changed (another daemon's change
 * committed in between): the group is rolled back, and run again by the rules it read.
 */
export class RulesChanged extends Error {
  constructor() {
    super("a source's route rules changed while its group was being stored");
  }
}

/**
 * What to do with a group whose transaction failed:
 * - `retry`: it lost a race and was rolled back whole (db/conflict.ts: a PostgreSQL deadlock's
 *   victim, SQLite busy beside `taplined prune`): nothing of it was written, and the same group
 *   succeeds once the other transaction is through. The count of such retries follows the group
 *   into every later attempt, so a busy database fails it soon.
 * - `refuse-all`: the database cannot serve (a restart, a full disk): no request of the group is
 *   to blame, and one by one each would fail the same way, one timeout after another. Each gets
 *   the 503 now; the queue goes on with what arrived meanwhile, and stores it once it is back.
 * - `afresh`: a cached id may name a row deleted since (with its source by another daemon, or as
 *   unused by a prune): forget them all, and try once more before blaming any one request. So for
 *   a group filed by rules that its own read found changed (`RulesChanged`): with nothing
 *   remembered, the next attempt waits for its read and files by the rules it read.
 * - `refuse` the one request, or try them `one-by-one`, so one's failure never fails another's.
 */
export type Recovery = 'retry' | 'refuse-all' | 'afresh' | 'refuse' | 'one-by-one';

export function recoveryOf(error: unknown, conflicts: number, cached: boolean, size: number): Recovery {
  // Run again by rules read first, not guessed: it cannot be filed by changed rules twice.
  if (error instanceof RulesChanged) return 'afresh';
  if (isConflict(error) && conflicts < MAX_CONFLICT_RETRIES) return 'retry';
  if (isDatabaseUnavailable(error)) return 'refuse-all';
  if (cached) return 'afresh';
  return size === 1 ? 'refuse' : 'one-by-one';
}
