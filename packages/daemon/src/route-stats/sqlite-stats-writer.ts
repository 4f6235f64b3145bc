import type { DirectStatements, SqlDialect } from '../db/dialect.js';
import { quoted, slots } from '../db/sql-text.js';
import type { BucketTotals } from './rollup.js';
import { encodeSketch, SKETCH_MERGE_FUNCTION } from './sketch.js';

const NUMBERS = ['count', 'latency_max', 'latency_sum', 'request_bytes', 'response_bytes', 'sketch'] as const;
const MINUTE_KEY = ['traffic_source_id', 'minute', 'route_id', 'method', 'domain_id', 'status_class'] as const;
const ROLLUP_KEY = ['traffic_source_id', 'span', 'start', 'route_id', 'method', 'domain_id', 'status_class'] as const;

/** The upsert writer.ts's `addedTo` makes through Kysely, for one row: its numbers added to a stored row's. */
function upsert(table: 'route_stats' | 'route_rollups', key: readonly string[]): string {
  const stored = (column: string) => `"${table}"."${column}"`;
  return (
    `insert into "${table}" (${quoted([...key, ...NUMBERS])}) values (${slots(key.length + NUMBERS.length)}) ` +
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
  const numbers = (t: BucketTotals) => [
    t.count,
    t.latencyMax,
    t.latencySum,
    t.requestBytes,
    t.responseBytes,
    encodeSketch(t.sketch),
  ];
  const ids = (t: BucketTotals) => ({
    source: stored.encode('traffic_source_id', t.sourceId),
    route: stored.encode('route_id', t.routeId),
    domain: stored.encode('domain_id', t.domainId),
  });
  for (const t of totals) {
    if (t.span !== 1) continue;
    const { source, route, domain } = ids(t);
    minute.run([source, t.start, route, t.method, domain, t.statusClass, ...numbers(t)]);
  }
  for (const t of totals) {
    if (t.span === 1) continue;
    const { source, route, domain } = ids(t);
    rollup.run([source, t.span, t.start, route, t.method, domain, t.statusClass, ...numbers(t)]);
  }
}
