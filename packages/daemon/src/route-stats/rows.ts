import type { HttpTraffic, StatsGrouping } from '@tapline/shared';
import { sql } from 'kysely';
import type { Store } from '../db/open.js';
import type { StoredMinute } from './rollup.js';
import { binsOf, type CompactBins, SKETCH_UNION_AGGREGATE, SketchSum } from './sketch.js';
import { iso, type Segment } from './window.js';

// The stored rows a read takes (read.ts), and what they are summed into.

/** A group's totals with the error classes counted beside them; its sketches summed at the end. */
export interface Group {
  count: number;
  latencyMax: number;
  latencySum: number;
  requestBytes: number;
  responseBytes: number;
  status4xx: number;
  status5xx: number;
  readonly latencies: SketchSum;
}

// Written out, not spread: an object built by spreading is slower to add to (rollup.ts `bucketTotals`).
export const emptyGroup = (): Group => ({
  count: 0,
  latencyMax: 0,
  latencySum: 0,
  requestBytes: 0,
  responseBytes: 0,
  status4xx: 0,
  status5xx: 0,
  latencies: new SketchSum(),
});

/** A stored row of any span, by ids, and the start of its bucket; `bins` its sketch read once (a remembered row). */
export type Row = StoredMinute & {
  readonly start: string;
  readonly route_id: string;
  readonly domain_id: string;
  readonly method: HttpTraffic['method'];
  readonly status_class: number;
  readonly bins?: CompactBins;
  /** Rows merged across status classes (`mergedRows`) count their 4xx and 5xx here. */
  readonly status4xx?: number;
  readonly status5xx?: number;
};

/** Adds a row's numbers into `g` (bigints arrive as text from PostgreSQL). */
export function addRow(g: Group, row: Row): void {
  const count = Number(row.count);
  g.count += count;
  g.latencyMax = Math.max(g.latencyMax, Number(row.latency_max));
  g.latencySum += Number(row.latency_sum);
  g.requestBytes += Number(row.request_bytes);
  g.responseBytes += Number(row.response_bytes);
  g.latencies.add(row.bins ?? binsOf(row.sketch));
  g.status4xx += row.status4xx ?? (row.status_class === 4 ? count : 0);
  g.status5xx += row.status5xx ?? (row.status_class === 5 ? count : 0);
}

const NUMBERS = [
  'count',
  'latency_max',
  'latency_sum',
  'request_bytes',
  'response_bytes',
  'sketch',
  'route_id',
  'domain_id',
  'method',
  'status_class',
] as const;

/**
 * SQLite: a segment's rows summed per route, method, domain and status class in the statement,
 * sketches merged by `SKETCH_UNION_AGGREGATE` (db/sqlite.ts), for a read that wants the window's
 * totals and no series: a group then costs one row however many minutes or hours it spans, where
 * making each stored row into an object (its ids decoded, its sketch copied) was most of a read's
 * time (decisions §21.7). The start is the group's first; only a series reads it.
 */
const summed = (start: 'minute' | 'start') =>
  [
    sql<Row['count']>`sum(count)`.as('count'),
    sql<Row['latency_max']>`max(latency_max)`.as('latency_max'),
    sql<Row['latency_sum']>`sum(latency_sum)`.as('latency_sum'),
    sql<Row['request_bytes']>`sum(request_bytes)`.as('request_bytes'),
    sql<Row['response_bytes']>`sum(response_bytes)`.as('response_bytes'),
    sql<Row['sketch']>`${sql.raw(SKETCH_UNION_AGGREGATE)}(sketch)`.as('sketch'),
    sql<string>`min(${sql.ref(start)})`.as('start'),
  ] as const;

const DIMS = ['route_id', 'method', 'domain_id', 'status_class'] as const;

/** The rows of one segment: minute rows, or hour or day rows. One range of either table's primary key. */
export async function segmentRows(
  { db, dialect }: Store,
  sourceId: string,
  segment: Segment,
  routeId: string | undefined,
  totalsOnly: boolean,
): Promise<Row[]> {
  const summing = totalsOnly && dialect.backend === 'sqlite';
  if (segment.span === 1) {
    let query = db
      .selectFrom('route_stats')
      .where('traffic_source_id', '=', sourceId)
      .where('minute', '>=', iso(segment.since))
      .where('minute', '<', iso(segment.until));
    if (routeId !== undefined) query = query.where('route_id', '=', routeId);
    return summing
      ? query
          .select([...DIMS, ...summed('minute')])
          .groupBy([...DIMS])
          .execute()
      : query.select([...NUMBERS, 'minute as start']).execute();
  }
  let query = db
    .selectFrom('route_rollups')
    .where('traffic_source_id', '=', sourceId)
    .where('span', '=', segment.span)
    .where('start', '>=', iso(segment.since))
    .where('start', '<', iso(segment.until));
  if (routeId !== undefined) query = query.where('route_id', '=', routeId);
  return summing
    ? query
        .select([...DIMS, ...summed('start')])
        .groupBy([...DIMS])
        .execute()
    : query.select([...NUMBERS, 'start']).execute();
}

/**
 * Rows summed per `key`, each sketch's bins added, the 4xx and 5xx counted: a block's rows per
 * route, method, domain and status class as SQLite's aggregate gives them (`segmentRows` summing),
 * for PostgreSQL's rows; and per group of a `by` (`parts`). A summed row keeps its first row's ids.
 */
export function mergedRows(rows: readonly Row[], key: (row: Row) => string): Row[] {
  const sums = new Map<string, { first: Row; totals: Group }>();
  for (const row of rows) {
    const k = key(row);
    let sum = sums.get(k);
    if (!sum) sums.set(k, (sum = { first: row, totals: emptyGroup() }));
    addRow(sum.totals, row);
  }
  return [...sums.values()].map(({ first, totals }) => ({
    start: first.start,
    route_id: first.route_id,
    domain_id: first.domain_id,
    method: first.method,
    status_class: first.status_class,
    count: totals.count,
    latency_max: totals.latencyMax,
    latency_sum: totals.latencySum,
    request_bytes: totals.requestBytes,
    response_bytes: totals.responseBytes,
    sketch: null,
    bins: totals.latencies.bins(),
    status4xx: totals.status4xx,
    status5xx: totals.status5xx,
  }));
}

export const dimsKey = (row: Row) => `${row.route_id} ${row.method} ${row.domain_id} ${row.status_class}`;

/** A row's group, without building its names: the ids a `by` reads, which name one group each. */
export function idKey(by: StatsGrouping, row: Row): string {
  switch (by) {
    case 'route':
      return row.route_id;
    case 'method':
      return row.method;
    case 'status':
      return String(row.status_class);
    case 'route,method':
      return `${row.method} ${row.route_id}`;
  }
}
