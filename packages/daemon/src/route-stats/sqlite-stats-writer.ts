import type { DirectStatements, SqlDialect } from '../db/dialect.js';
import { quoted } from '../db/sql-text.js';
import { type BucketTotals, numbersOf } from './rollup.js';
import { SKETCH_MERGE_FUNCTION } from './sketch.js';

const NUMBERS = ['count', 'latency_max', 'latency_sum', 'request_bytes', 'response_bytes', 'sketch'] as const;
const MINUTE_KEY = ['traffic_source_id', 'minute', 'route_id', 'method', 'domain_id', 'status_class'] as const;
const ROLLUP_KEY = ['traffic_source_id', 'span', 'start', 'route_id', 'method', 'domain_id', 'status_class'] as const;

/** The upsert writer.ts's `addedTo` makes through Kysely, for one row: its numbers added to a stored row's. */
function upsert(table: 'route_stats' | 'route_rollups', key: readonly string[]): string {
  const stored = (column: string) => `"${table}"."${column}"`;
  return (
    `insert into "${table}" (${quoted([...key, ...NUMBERS])}) values (${[...key, ...NUMBERS].map((c) => `@${c}`).join(', ')}) ` +
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
  // Bound by name from one object a row, which serves either statement: an array spread from parts
  // made iterators and arrays, a fifth of what a batch's statistics allocated. Minute rows first,
  // then hour and day rows.
  for (const minutes of [true, false])
    for (const t of totals)
      if ((t.span === 1) === minutes)
        (minutes ? minute : rollup).run(
          // Onto the numbers' literal, not spread with them: a spread followed by more properties
          // makes an object V8 is slow to build and to collect (decisions §20.15).
          Object.assign(numbersOf(t), {
            traffic_source_id: idOf('traffic_source_id', t.sourceId),
            minute: t.start,
            span: t.span,
            start: t.start,
            route_id: idOf('route_id', t.routeId),
            method: t.method,
            domain_id: idOf('domain_id', t.domainId),
            status_class: t.statusClass,
          }),
        );
}
