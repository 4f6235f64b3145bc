import {
  evaluateFilter,
  type FilterExpr,
  type HttpTraffic,
  levelOf,
  type StatsAnswer,
  type StatsGroup,
  type StatsGrouping,
  type StatsNumbers,
  type StatsPoint,
  type StatsQuery,
} from '@tapline/shared';
import type { Store } from '../db/open.js';
import { addStored, emptyTotals, type Totals } from './rollup.js';
import { quantileOf } from './sketch.js';
import { bucketOf, bucketText, iso, previousOf, type Window, windowOf } from './window.js';

/** A group's totals with the error classes counted beside them. */
interface Group extends Totals {
  status4xx: number;
  status5xx: number;
}

const emptyGroup = (): Group => ({ ...emptyTotals(), status4xx: 0, status5xx: 0 });

/** What a minute row is filed under: everything a `where` or a `by` can look at. */
interface Dims {
  readonly route: string;
  readonly method: HttpTraffic['method'];
  readonly domain: string;
  readonly statusClass: number;
}

/**
 * A `where` asked of a row: the filter's own evaluator, given an entry that stands for every
 * entry of the row. The schema let through only route, method, domain, level and status compared
 * by whole classes, which give the same answer for every status of a class.
 */
function matches(where: FilterExpr | undefined, dims: Dims): boolean {
  if (!where) return true;
  const status = dims.statusClass * 100;
  const stand: HttpTraffic = {
    id: '',
    status,
    method: dims.method,
    level: levelOf(status),
    elapsedTime: 0,
    trafficSourceId: '',
    domainId: '',
    pathnameId: '',
    requestId: '',
    responseId: '',
    createdAt: '',
    domain: dims.domain,
    pathname: '',
    protocol: 'HTTP',
    route: dims.route,
  };
  return evaluateFilter(where, stand) === true;
}

function groupKey(by: StatsGrouping, d: Dims): string {
  switch (by) {
    case 'route':
      return d.route;
    case 'method':
      return d.method;
    case 'status':
      return `${d.statusClass}xx`;
    case 'route,method':
      return `${d.method} ${d.route}`;
  }
}

const labels = (by: StatsGrouping, d: Dims): Pick<StatsGroup, 'route' | 'method' | 'status'> =>
  by === 'route'
    ? { route: d.route }
    : by === 'method'
      ? { method: d.method }
      : by === 'status'
        ? { status: `${d.statusClass}xx` }
        : { route: d.route, method: d.method };

const round = (v: number | null) => (v === null ? null : Math.round(v * 1000) / 1000);

export function numbersOf(g: Group): StatsNumbers {
  const q = (p: number) => round(quantileOf(g.sketch, p));
  return {
    count: g.count,
    status4xx: g.status4xx,
    status5xx: g.status5xx,
    errorRate: g.count === 0 ? 0 : (g.status4xx + g.status5xx) / g.count,
    p50: q(0.5),
    p90: q(0.9),
    p95: q(0.95),
    p99: q(0.99),
    max: g.count === 0 ? null : g.latencyMax,
    requestBytes: g.requestBytes,
    responseBytes: g.responseBytes,
  };
}

function addRow(g: Group, dims: Dims, row: Parameters<typeof addStored>[1]): void {
  addStored(g, row);
  if (dims.statusClass === 4) g.status4xx += Number(row.count);
  if (dims.statusClass === 5) g.status5xx += Number(row.count);
}

/** The minute rows of a window, with the names a `where` and a `by` read. */
function rowsOf({ db }: Store, sourceId: string, window: Window, route: string | undefined) {
  let query = db
    .selectFrom('route_stats as s')
    .innerJoin('routes as r', 'r.id', 's.route_id')
    .innerJoin('domains as d', 'd.id', 's.domain_id')
    .select([
      's.minute',
      's.method',
      's.status_class',
      's.count',
      's.latency_max',
      's.latency_sum',
      's.request_bytes',
      's.response_bytes',
      's.sketch',
      'r.template',
      'd.value as domain',
    ])
    .where('s.traffic_source_id', '=', sourceId)
    .where('s.minute', '>=', iso(window.since))
    .where('s.minute', '<', iso(window.until));
  if (route !== undefined) query = query.where('r.template', '=', route);
  return query.execute();
}

interface Aggregate {
  readonly groups: Map<
    string,
    { labels: Pick<StatsGroup, 'route' | 'method' | 'status'>; totals: Group; points: Map<number, Group> }
  >;
}

async function aggregate(
  store: Store,
  sourceId: string,
  window: Window,
  query: StatsQuery,
  by: StatsGrouping,
  bucket: number | undefined,
): Promise<Aggregate> {
  const groups: Aggregate['groups'] = new Map();
  for (const row of await rowsOf(store, sourceId, window, query.route)) {
    const dims: Dims = { route: row.template, method: row.method, domain: row.domain, statusClass: row.status_class };
    if (!matches(query.where, dims)) continue;
    const key = groupKey(by, dims);
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { labels: labels(by, dims), totals: emptyGroup(), points: new Map() }));
    addRow(group.totals, dims, row);
    if (bucket !== undefined) {
      const start = Math.floor(Date.parse(row.minute) / bucket) * bucket;
      let point = group.points.get(start);
      if (!point) group.points.set(start, (point = emptyGroup()));
      addRow(point, dims, row);
    }
  }
  return { groups };
}

function seriesOf(window: Window, bucket: number, points: Map<number, Group>): StatsPoint[] {
  const series: StatsPoint[] = [];
  for (let start = Math.floor(window.since / bucket) * bucket; start < window.until; start += bucket) {
    const point = points.get(start);
    series.push({
      start: iso(start),
      count: point?.count ?? 0,
      status5xx: point?.status5xx ?? 0,
      p95: point ? round(quantileOf(point.sketch, 0.95)) : null,
    });
  }
  return series;
}

/**
 * `GET /stats/:id`: the minute rows of the window merged per group (counts and bytes added, sketches
 * merged, maxima taken), and with `compare` the same for the earlier window. Groups by count, most first.
 */
export async function readStats(
  store: Store,
  sourceId: string,
  query: StatsQuery,
  now: number,
  retentionMs: number | null,
): Promise<StatsAnswer> {
  const window = windowOf(query, now);
  const by = query.by ?? 'route,method';
  const bucket = query.series === '1' ? bucketOf(window, query.bucket) : undefined;
  const current = await aggregate(store, sourceId, window, query, by, bucket);
  const earlier = query.compare ? previousOf(window, query.compare) : undefined;
  const before = earlier ? await aggregate(store, sourceId, earlier, query, by, undefined) : undefined;

  const data: StatsGroup[] = [...current.groups.values()].map(({ labels: l, totals, points }) => {
    const group: StatsGroup = { ...l, ...numbersOf(totals) };
    if (before) group.previous = numbersOf(before.groups.get(groupKey(by, dimsOfLabels(l)))?.totals ?? emptyGroup());
    if (bucket !== undefined) group.series = seriesOf(window, bucket, points);
    return group;
  });
  data.sort(
    (a, b) =>
      b.count - a.count || (a.route ?? a.method ?? a.status ?? '').localeCompare(b.route ?? b.method ?? b.status ?? ''),
  );

  const meta: StatsAnswer['meta'] = { since: iso(window.since), until: iso(window.until), by };
  if (bucket !== undefined) meta.bucket = bucketText(bucket);
  if (earlier) meta.previous = { since: iso(earlier.since), until: iso(earlier.until) };
  const keptSince = retentionMs === null ? undefined : Math.floor((now - retentionMs) / 60_000) * 60_000;
  const oldest = Math.min(window.since, earlier?.since ?? window.since);
  if (keptSince !== undefined && oldest < keptSince) {
    meta.retention = {
      keptSince: iso(keptSince),
      note: 'part of the window is older than --stats-retention: only what is kept is counted',
    };
  }
  return { data, meta };
}

/** The key of a group from its labels, to find the same group in the earlier window. */
function dimsOfLabels(l: Pick<StatsGroup, 'route' | 'method' | 'status'>): Dims {
  return { route: l.route ?? '', method: l.method ?? 'GET', domain: '', statusClass: Number(l.status?.[0] ?? 0) };
}

/**
 * The numbers of every row of a window that a `route` and a `where` select, as one group: what an
 * alert rule compares (alerts/observe.ts), where `readStats` would split them by a `by`.
 */
export async function readWindowTotal(
  store: Store,
  sourceId: string,
  query: Pick<StatsQuery, 'since' | 'until' | 'route' | 'where'>,
  now: number,
): Promise<StatsNumbers> {
  const total = emptyGroup();
  for (const row of await rowsOf(store, sourceId, windowOf(query, now), query.route)) {
    const dims: Dims = { route: row.template, method: row.method, domain: row.domain, statusClass: row.status_class };
    if (matches(query.where, dims)) addRow(total, dims, row);
  }
  return numbersOf(total);
}
