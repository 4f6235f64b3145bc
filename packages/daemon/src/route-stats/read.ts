import { evaluateFilter, levelOf } from '@tapline/shared/lean';
import type {
  FilterExpr,
  HttpTraffic,
  StatsAnswer,
  StatsGroup,
  StatsGrouping,
  StatsNumbers,
  StatsPoint,
  StatsQuery,
} from '@tapline/shared';
import type { Store } from '../db/open.js';
import { totalsRows } from './remembered.js';
import { addRow, emptyGroup, type Group, idKey, type Row, segmentRows } from './rows.js';
import { quantileOf } from './sketch.js';
import { bucketOf, bucketText, iso, previousOf, segmentsOf, spansFor, type Window, windowOf } from './window.js';

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
  const sketch = g.latencies.sketch();
  const q = (p: number) => round(quantileOf(sketch, p));
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

/** A window's rows, and the names their ids stand for. */
interface Rows {
  readonly rows: readonly Row[];
  readonly routes: ReadonlyMap<string, string>;
  readonly domains: ReadonlyMap<string, string>;
}

/**
 * The rows of a window, coarsest that fit (window.ts `segmentsOf`), and the templates and domains
 * a `where` and a `by` read: looked up once per id, not joined to every row, and rows are not
 * copied (a day's read is tens of thousands of rows, and copies of them were a tenth of its time).
 */
async function rowsOf(
  store: Store,
  sourceId: string,
  window: Window,
  route: string | undefined,
  bucket: number | undefined,
  by: StatsGrouping | undefined,
  now: number,
): Promise<Rows> {
  let routeId: string | undefined;
  if (route !== undefined) {
    const found = await store.db
      .selectFrom('routes')
      .select('id')
      .where('traffic_source_id', '=', sourceId)
      .where('template', '=', route)
      .executeTakeFirst();
    if (!found) return { rows: [], routes: new Map(), domains: new Map() };
    routeId = found.id;
  }
  const rows: Row[] = [];
  if (bucket === undefined) await totalsRows(store, sourceId, window, routeId, by, now, rows);
  else
    for (const segment of segmentsOf(window, spansFor(bucket)))
      for (const row of await segmentRows(store, sourceId, segment, routeId, false)) rows.push(row);
  if (rows.length === 0) return { rows, routes: new Map(), domains: new Map() };
  const routes = new Map(
    (
      await store.db.selectFrom('routes').select(['id', 'template']).where('traffic_source_id', '=', sourceId).execute()
    ).map((r) => [r.id, r.template]),
  );
  const domains = new Map(
    (
      await store.db
        .selectFrom('domains')
        .select(['id', 'value'])
        .where('id', 'in', [...new Set(rows.map((r) => r.domain_id))])
        .execute()
    ).map((d) => [d.id, d.value]),
  );
  return { rows, routes, domains };
}

const dimsOf = ({ routes, domains }: Rows, row: Row): Dims => ({
  route: routes.get(row.route_id) ?? '',
  method: row.method,
  domain: domains.get(row.domain_id) ?? '',
  statusClass: row.status_class,
});

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
  now: number,
): Promise<Aggregate> {
  const byIds: Aggregate['groups'] = new Map();
  // A read without `where` or `route` may take remembered blocks summed per group of its `by`.
  const whole = query.where === undefined && query.route === undefined;
  const found = await rowsOf(store, sourceId, window, query.route, bucket, whole ? by : undefined, now);
  for (const row of found.rows) {
    const dims = query.where || !byIds.has(idKey(by, row)) ? dimsOf(found, row) : undefined;
    if (dims && !matches(query.where, dims)) continue;
    const key = idKey(by, row);
    let group = byIds.get(key);
    if (!group && dims) byIds.set(key, (group = { labels: labels(by, dims), totals: emptyGroup(), points: new Map() }));
    if (!group) continue;
    addRow(group.totals, row);
    if (bucket !== undefined) {
      const start = Math.floor(Date.parse(row.start) / bucket) * bucket;
      let point = group.points.get(start);
      if (!point) group.points.set(start, (point = emptyGroup()));
      addRow(point, row);
    }
  }
  // Keyed by names from here on, as `compare` finds a group of the earlier window by them. One id,
  // one name: templates are unique per source, and a row's route is there (its key references it).
  const groups: Aggregate['groups'] = new Map();
  for (const group of byIds.values()) groups.set(groupKey(by, dimsOfLabels(group.labels)), group);
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
      p95: point ? round(quantileOf(point.latencies.sketch(), 0.95)) : null,
    });
  }
  return series;
}

/** The first minute `--stats-retention` keeps at `now`; undefined when it is off. */
const keptSinceAt = (now: number, retentionMs: number | null): number | undefined =>
  retentionMs === null ? undefined : Math.floor((now - retentionMs) / 60_000) * 60_000;

/**
 * What of a window is kept: only that counts, whether the pruner has reached the older rows yet
 * or not, so that no answer, remembered or not, holds numbers the pruner removes.
 */
const keptOf = (w: Window, keptSince: number | undefined): Window => ({
  since: Math.max(w.since, keptSince ?? w.since),
  until: w.until,
});

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
  const keptSince = keptSinceAt(now, retentionMs);
  // Only what is kept counts, whether the pruner has reached it yet or not: a day row reaching
  // past --stats-retention is not read, its kept minutes and hours are.
  const kept = (w: Window): Window => keptOf(w, keptSince);
  const current = await aggregate(store, sourceId, kept(window), query, by, bucket, now);
  const earlier = query.compare ? previousOf(window, query.compare) : undefined;
  const before = earlier ? await aggregate(store, sourceId, kept(earlier), query, by, undefined, now) : undefined;

  const data: StatsGroup[] = [...current.groups.values()].map(({ labels: l, totals, points }) => {
    // Not `{ ...l, ...numbersOf(totals) }`: Node 20's V8 kept objects built by a spread followed by
    // more properties alive through the next scavenge, so every group of every read was promoted
    // (3 MB at each scavenge, pauses of 10 to 30 ms in a 24-hour read; docs/statistics.md, "Speed").
    const group: StatsGroup = Object.assign({}, l, numbersOf(totals));
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
  retentionMs: number | null,
): Promise<StatsNumbers> {
  const total = emptyGroup();
  const window = keptOf(windowOf(query, now), keptSinceAt(now, retentionMs));
  const found = await rowsOf(store, sourceId, window, query.route, undefined, undefined, now);
  for (const row of found.rows) {
    if (!query.where || matches(query.where, dimsOf(found, row))) addRow(total, row);
  }
  return numbersOf(total);
}
