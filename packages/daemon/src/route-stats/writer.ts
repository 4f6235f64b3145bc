import { type ExpressionBuilder, sql } from 'kysely';
import type { SqlDialect } from '../db/dialect.js';
import type { Executor } from '../db/open.js';
import type { DB } from '../db/schema.js';
import {
  addStored,
  type Keyed,
  keyOf,
  type MinuteTotals,
  type StatInput,
  type StoredMinute,
  totalsOf,
} from './rollup.js';
import { encodeSketch } from './sketch.js';

/** Keys per statement: six bound values each in the look-up, twelve in the upsert. */
const KEYS_PER_STATEMENT = 200;

function* chunks<T>(rows: readonly T[]): Generator<T[]> {
  for (let i = 0; i < rows.length; i += KEYS_PER_STATEMENT) yield rows.slice(i, i + KEYS_PER_STATEMENT);
}

/**
 * Adds the entries of one ingest transaction to the minute rows, in that transaction, so the
 * numbers and the entries commit together or not at all (docs/decisions.md §21.2). A sketch cannot
 * be added in SQL, so each row is read, merged and written back; exact with several writers:
 * - PostgreSQL: missing rows are first inserted empty (`on conflict do nothing`, which waits for
 *   another transaction inserting the same key), then all of the group's rows are read `for
 *   update` in key order, so a second writer waits for the first's commit and reads its result.
 *   Rows are always locked in key order, after the count rollup, so writers never deadlock.
 * - SQLite: one writer at a time (transactions begin IMMEDIATE), so the read is the latest.
 */
export async function addStats(trx: Executor, dialect: SqlDialect, inputs: readonly StatInput[]): Promise<void> {
  if (inputs.length === 0) return;
  const totals = totalsOf(inputs);
  for (const part of chunks(totals)) {
    if (dialect.concurrentWriters) await insertEmpty(trx, part);
    const byKey = new Map<string, MinuteTotals>(part.map((t) => [keyOf(t), t]));
    for (const row of await lockedRows(trx, dialect, part)) {
      const target = byKey.get(keyOf(row));
      if (target) addStored(target, row);
    }
    await trx
      .insertInto('route_stats')
      .values(part.map(rowOf))
      .onConflict((oc) =>
        oc.columns(['traffic_source_id', 'minute', 'route_id', 'method', 'domain_id', 'status_class']).doUpdateSet({
          count: sql.ref('excluded.count'),
          latency_max: sql.ref('excluded.latency_max'),
          latency_sum: sql.ref('excluded.latency_sum'),
          request_bytes: sql.ref('excluded.request_bytes'),
          response_bytes: sql.ref('excluded.response_bytes'),
          sketch: sql.ref('excluded.sketch'),
        }),
      )
      .execute();
  }
}

const keyColumns = (key: Keyed) => ({
  traffic_source_id: key.sourceId,
  minute: key.minute,
  route_id: key.routeId,
  method: key.method,
  domain_id: key.domainId,
  status_class: key.statusClass,
});

/** The one row of `key`, as a where clause of a select, an update or a delete. */
export const rowWhere = (key: Keyed) => (eb: ExpressionBuilder<DB, 'route_stats'>) =>
  eb.and([
    eb('traffic_source_id', '=', key.sourceId),
    eb('minute', '=', key.minute),
    eb('route_id', '=', key.routeId),
    eb('method', '=', key.method),
    eb('domain_id', '=', key.domainId),
    eb('status_class', '=', key.statusClass),
  ]);

/** PostgreSQL: the rows of `keys` that are missing, inserted empty, so that every writer can lock them. */
export async function insertEmpty(trx: Executor, keys: readonly Keyed[]): Promise<void> {
  for (const part of chunks(keys)) {
    await trx
      .insertInto('route_stats')
      .values(part.map(keyColumns))
      .onConflict((oc) => oc.doNothing())
      .execute();
  }
}

/** The stored rows of `keys`, locked in key order (the order every writer takes them in), each with its key. */
export async function lockedRows(
  trx: Executor,
  dialect: SqlDialect,
  keys: readonly Keyed[],
): Promise<(StoredMinute & Keyed)[]> {
  const rows: (StoredMinute & Keyed)[] = [];
  for (const part of chunks(keys)) {
    const query = trx
      .selectFrom('route_stats')
      .selectAll()
      .where((eb) => eb.or(part.map((key) => rowWhere(key)(eb))))
      .orderBy('traffic_source_id')
      .orderBy('minute')
      .orderBy('route_id')
      .orderBy('method')
      .orderBy('domain_id')
      .orderBy('status_class');
    for (const row of await dialect.lockRows(query, 'wait').execute()) {
      rows.push({
        ...row,
        sourceId: row.traffic_source_id,
        routeId: row.route_id,
        domainId: row.domain_id,
        statusClass: row.status_class,
      });
    }
  }
  return rows;
}

const rowOf = (t: MinuteTotals) => ({
  traffic_source_id: t.sourceId,
  minute: t.minute,
  route_id: t.routeId,
  method: t.method,
  domain_id: t.domainId,
  status_class: t.statusClass,
  count: t.count,
  latency_max: t.latencyMax,
  latency_sum: t.latencySum,
  request_bytes: t.requestBytes,
  response_bytes: t.responseBytes,
  sketch: encodeSketch(t.sketch),
});
