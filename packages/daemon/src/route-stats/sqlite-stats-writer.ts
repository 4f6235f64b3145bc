import type { DirectStatements, SqlDialect } from '../db/dialect.js';
import { quoted } from '../db/sql-text.js';
import type { BucketTotals } from './rollup.js';
import { SKETCH_MERGE_FUNCTION } from './sketch.js';

const NUMBERS = ['count', 'latency_max', 'latency_sum', 'request_bytes', 'response_bytes', 'sketch'] as const;
const MINUTE_KEY = ['traffic_source_id', 'minute', 'route_id', 'method', 'domain_id', 'status_class'] as const;
const ROLLUP_KEY = ['traffic_source_id', 'span', 'start', 'route_id', 'method', 'domain_id', 'status_class'] as const;

/**
 * The upsert writer.ts's `addedTo` makes through Kysely, for one row: its numbers added to a stored
 * row's. Bound by position, the key's columns then the numbers', in the order written here.
 */
function upsert(table: 'route_stats' | 'route_rollups', key: readonly string[]): string {
  const stored = (column: string) => `"${table}"."${column}"`;
  const columns = [...key, ...NUMBERS];
  return (
    `insert into "${table}" (${quoted(columns)}) values (${columns.map(() => '?').join(', ')}) ` +
    `on conflict (${quoted(key)}) do update set ` +
    [
      `"count" = ${stored('count')} + "excluded"."count"`,
      `"latency_max" = max(${stored('latency_max')}, "excluded"."latency_max")`,
      `"latency_sum" = ${stored('latency_sum')} + "excluded"."latency_sum"`,
      `"request_bytes" = ${stored('request_bytes')} + "excluded"."request_bytes"`,
      `"response_bytes" = ${stored('response_bytes')} + "excluded"."response_bytes"`,
      `"sketch" = ${SKETCH_MERGE_FUNCTION}(${stored('sketch')}, "excluded"."sketch")`,
    ].join(', ')
  );
}

const SQL = { minute: upsert('route_stats', MINUTE_KEY), rollup: upsert('route_rollups', ROLLUP_KEY) };

/**
 * Ingest's statistics on SQLite: each row's numbers added in its upsert (as writer.ts does through
 * Kysely, decisions §21.6), bound one row at a time to two statements prepared once on the
 * connection. Through Kysely, every batch built, compiled and ran through the stored-values plugin
 * multi-row upserts of a few hundred rows: with SQLite's own work in them, about two thirds of the statistics' cost of ingest
 * (docs/statistics.md). Minute rows first, then hour and day rows, in key order, as every writer
 * takes them. Inside the caller's transaction only: a statement outside one would commit alone.
 */
export function addStatsDirect(
  dialect: Pick<SqlDialect, 'stored'>,
  statements: DirectStatements,
  totals: readonly BucketTotals[],
): void {
  if (!statements.inTransaction) throw new Error('the SQLite statistics writer runs inside a transaction only');
  const { stored } = dialect;
  const minute = statements.prepare(SQL.minute);
  const rollup = statements.prepare(SQL.rollup);
  // A batch's rows share a source and a few hundred routes: each id is put in its stored form once.
  const encoded = new Map<string, unknown>();
  const idOf = (column: string, id: string): unknown => {
    let value = encoded.get(id);
    if (value === undefined) encoded.set(id, (value = stored.encode(column, id)));
    return value;
  };
  // Bound by position from one array a statement, reused for every row: named parameters from an
  // object a row cost better-sqlite3 a property lookup each, a quarter of the statements' time in
  // an in-process comparison, and an array spread from parts made iterators and arrays.
  const minuteValues: unknown[] = [];
  const rollupValues: unknown[] = [];
  const valuesOf = (t: BucketTotals): unknown[] => {
    const values = t.span === 1 ? minuteValues : rollupValues;
    let i = 0;
    values[i++] = idOf('traffic_source_id', t.sourceId);
    if (t.span !== 1) values[i++] = t.span;
    values[i++] = t.start;
    values[i++] = idOf('route_id', t.routeId);
    values[i++] = t.method;
    values[i++] = idOf('domain_id', t.domainId);
    values[i++] = t.statusClass;
    values[i++] = t.count;
    values[i++] = t.latencyMax;
    values[i++] = t.latencySum;
    values[i++] = t.requestBytes;
    values[i++] = t.responseBytes;
    values[i++] = t.sketch.encode();
    return values;
  };
  // Minute rows first, then hour and day rows.
  for (const t of totals) if (t.span === 1) minute.run(valuesOf(t));
  for (const t of totals) if (t.span !== 1) rollup.run(valuesOf(t));
}
