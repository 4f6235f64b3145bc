import type { SqlDialect } from '../db/dialect.js';
import type { Executor } from '../db/open.js';
import { type BucketTotals, emptyTotals, type Keyed, keyOf, type StatInput, totalsOf } from './rollup.js';
import { binsOf, Tally } from './sketch.js';
import { raiseEpochs } from './closed-blocks.js';
import { addStats, chunks, LEVELS, type StoredRow } from './writer.js';

/** Each key once, in key order. */
const keysOf = (rows: readonly Keyed[]): Keyed[] =>
  [...new Map(rows.map((r) => [keyOf(r), r])).entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, k]) => k);

/** The stored entries under a row's key and in its bucket (a minute, an hour or a day), now: how many, and the largest latency. */
async function rawBucket(trx: Executor, key: Keyed) {
  const next = new Date(Date.parse(key.start) + key.span * 60_000).toISOString();
  const row = await trx
    .selectFrom('http_traffic')
    .select((eb) => [eb.fn.countAll<number | string>().as('n'), eb.fn.max('elapsed_time').as('max')])
    .where('traffic_source_id', '=', key.sourceId)
    .where('route_id', '=', key.routeId)
    .where('method', '=', key.method)
    .where('domain_id', '=', key.domainId)
    .where('created_at', '>=', key.start)
    .where('created_at', '<', next)
    .where('status', '>=', key.statusClass * 100)
    .where('status', '<', key.statusClass === 5 ? 1000 : key.statusClass * 100 + 100)
    .executeTakeFirst();
  return { count: Number(row?.n ?? 0), max: row?.max === null || row?.max === undefined ? null : Number(row.max) };
}

/** A stored row less what `out` contributed; the maximum as `moveStats` says (`arrivals`: entries moving into the row). */
async function subtracted(trx: Executor, row: StoredRow, out: BucketTotals, arrivals: number): Promise<BucketTotals> {
  const count = Number(row.count) - out.count;
  // A sketch's bins are counts of values in each bin: the removed values' bins are taken out
  // exactly (the same relative accuracy, hence the same bins), and percentiles read afterwards are
  // those of what is left, within the same 1 %.
  const sketch = new Tally();
  sketch.add(binsOf(row.sketch));
  sketch.add(out.sketch, -1);
  const raw = await rawBucket(trx, out);
  return {
    ...out,
    count,
    latencySum: Number(row.latency_sum) - out.latencySum,
    latencyMax: raw.count === count + arrivals && raw.max !== null ? raw.max : Number(row.latency_max),
    requestBytes: Number(row.request_bytes) - out.requestBytes,
    responseBytes: Number(row.response_bytes) - out.responseBytes,
    sketch,
  };
}

/**
 * Moves entries' numbers from their old route's rows to their new one's, minute, hour and day rows
 * alike, in the transaction that moved the entries (route-stats/reassign.ts), so both commit or
 * neither does. Every row either side touches is locked first, minute rows then hour and day rows,
 * each in key order, as ingest locks them (writer.ts), so the two never deadlock. Counts, sums,
 * bytes and sketches are subtracted exactly. The maximum is taken again from the stored entries of
 * the row's minute, hour or day when they are all still stored; a row whose entries were partly
 * pruned keeps the maximum it had (an upper bound: the largest may have moved). A row left with no
 * request goes, unless entries arrive in it in the same move: it is then emptied in place and filled
 * again. The old rows are subtracted before the new ones are added, so a key on both sides (entries
 * swapping routes in one batch) ends with both.
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
  // What arrives in each row: the bucket's stored entries count those already.
  const arriving = new Map(plus.map((p) => [keyOf(p), p.count]));
  const stored = new Map<string, StoredRow>();
  for (const { level, holds } of LEVELS) {
    // Chunk by chunk in key order, each chunk's missing rows made just before it is locked, as
    // addStats does: making all of them first would hold rows of later chunks out of order.
    for (const part of chunks(keysOf([...minus, ...plus].filter(holds)))) {
      const made = part.filter((k) => arriving.has(keyOf(k)));
      if (dialect.concurrentWriters && made.length > 0) await level.insertEmpty(trx, made).execute();
      for (const row of await level.locked(trx, dialect, part)) stored.set(keyOf(row), row);
    }
  }
  for (const { level, holds } of LEVELS) {
    const left: BucketTotals[] = [];
    for (const out of minus.filter(holds)) {
      const row = stored.get(keyOf(out));
      if (!row) continue;
      const arrivals = arriving.get(keyOf(out)) ?? 0;
      if (Number(row.count) - out.count > 0) left.push(await subtracted(trx, row, out, arrivals));
      // Emptied, as the empty row a concurrent writer inserts first, and filled again by addStats
      // below. Not deleted: a writer waiting on this row's lock would find it gone, not see the row
      // addStats inserts anew, and overwrite it with its own numbers alone.
      else if (arrivals > 0) left.push({ ...out, ...emptyTotals() });
      else await level.remove(trx, out);
    }
    for (const part of chunks(left)) await level.write(trx, part, 'replace').execute();
  }
  // The rows are held now; addStats locks them again, which waits for nobody, and reads them as left above.
  await addStats(trx, dialect, added, '');
  // Whatever minutes they were in, the numbers moved may be remembered: every source's counter goes up.
  await raiseEpochs(
    trx,
    [...removed, ...added].map((input) => input.sourceId),
  );
}
