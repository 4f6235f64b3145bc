import type { SqlDialect } from '../db/dialect.js';
import type { Executor } from '../db/open.js';
import { type Keyed, keyOf, type StatInput, totalsOf } from './rollup.js';
import { encodeSketch, mergeBytes, newSketch, type Sketch } from './sketch.js';
import { addStats, insertEmpty, lockedRows, rowWhere } from './writer.js';

/**
 * Takes what `removed` contributed out of a sketch: a sketch's bins are counts of values in each
 * bin, so the removed values' bins are subtracted exactly (the same relative accuracy, hence the
 * same bins). Percentiles read afterwards are those of what is left, within the same 1 %.
 */
export function subtractSketch(from: Sketch, removed: Sketch): void {
  for (const [into, out] of [
    [from.store, removed.store],
    [from.negativeStore, removed.negativeStore],
  ] as const) {
    out.bins.forEach((count, i) => {
      if (count !== 0) into.add(i + out.offset, -count);
    });
  }
  from.zeroCount -= removed.zeroCount;
  from.count -= removed.count;
}

const byKey = <T extends Keyed>(rows: readonly T[]) => new Map(rows.map((r) => [keyOf(r), r]));

/** The minute's stored entries under the key, now: how many, and the largest latency. */
async function rawMinute(trx: Executor, key: Keyed) {
  const next = new Date(Date.parse(key.minute) + 60_000).toISOString();
  const row = await trx
    .selectFrom('http_traffic')
    .select((eb) => [eb.fn.countAll<number | string>().as('n'), eb.fn.max('elapsed_time').as('max')])
    .where('traffic_source_id', '=', key.sourceId)
    .where('route_id', '=', key.routeId)
    .where('method', '=', key.method)
    .where('domain_id', '=', key.domainId)
    .where('created_at', '>=', key.minute)
    .where('created_at', '<', next)
    .where('status', '>=', key.statusClass * 100)
    .where('status', '<', key.statusClass === 5 ? 1000 : key.statusClass * 100 + 100)
    .executeTakeFirst();
  return { count: Number(row?.n ?? 0), max: row?.max === null || row?.max === undefined ? null : Number(row.max) };
}

/**
 * Moves entries' numbers from their old route's minute rows to their new one's, in the
 * transaction that moved the entries (route-stats/reassign.ts), so both commit or neither does.
 * Every row either side touches is locked first, all in key order, as ingest locks them, so the
 * two never deadlock. Counts, sums, bytes and sketches are subtracted exactly. The maximum is
 * taken again from the minute's stored entries when they are all still stored; a minute whose
 * entries were partly pruned keeps the maximum it had (an upper bound: the largest may have moved).
 * A row left with no request goes. The old numbers come out before the new go in: a key on both
 * sides (entries swapping routes within one minute) would otherwise have its arrivals overwritten.
 */
export async function moveStats(
  trx: Executor,
  dialect: SqlDialect,
  removed: readonly StatInput[],
  added: readonly StatInput[],
): Promise<void> {
  if (removed.length === 0 && added.length === 0) return;
  const minus = totalsOf(removed);
  const plus = totalsOf(added);
  if (dialect.concurrentWriters) await insertEmpty(trx, plus);
  const keys = [...byKey<Keyed>([...minus, ...plus]).entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, k]) => k);
  const stored = byKey(await lockedRows(trx, dialect, keys));
  // What arrives in each row: the minute's stored entries count those already.
  const arriving = new Map(plus.map((p) => [keyOf(p), p.count]));
  for (const out of minus) {
    const row = stored.get(keyOf(out));
    if (!row) continue;
    const count = Number(row.count) - out.count;
    if (count <= 0 && arriving.has(keyOf(out))) {
      // Emptied, as the empty row a concurrent writer inserts first, and filled again by addStats
      // below. Not deleted: a writer waiting on this row's lock would find it gone, not see the
      // row addStats inserts anew, and overwrite it with its own numbers alone.
      await trx
        .updateTable('route_stats')
        .where(rowWhere(out))
        .set({ count: 0, latency_sum: 0, latency_max: 0, request_bytes: 0, response_bytes: 0, sketch: null })
        .execute();
      continue;
    }
    if (count <= 0) {
      await trx.deleteFrom('route_stats').where(rowWhere(out)).execute();
      continue;
    }
    const sketch = newSketch();
    mergeBytes(sketch, row.sketch);
    subtractSketch(sketch, out.sketch);
    const raw = await rawMinute(trx, out);
    await trx
      .updateTable('route_stats')
      .where(rowWhere(out))
      .set({
        count,
        latency_sum: Number(row.latency_sum) - out.latencySum,
        latency_max:
          raw.count === count + (arriving.get(keyOf(out)) ?? 0) && raw.max !== null ? raw.max : Number(row.latency_max),
        request_bytes: Number(row.request_bytes) - out.requestBytes,
        response_bytes: Number(row.response_bytes) - out.responseBytes,
        sketch: encodeSketch(sketch),
      })
      .execute();
  }
  // The rows are held; addStats locks its own again, which waits for nobody, and reads them as left above.
  await addStats(trx, dialect, added);
}
