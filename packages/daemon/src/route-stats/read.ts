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
import { sql } from 'kysely';
import type { Store } from '../db/open.js';
import { blockKey, blocksOf, CLOSED_MS, ClosedBlocks, epochOf } from './closed-blocks.js';
import type { StoredMinute } from './rollup.js';
import { binsOf, type CompactBins, quantileOf, SKETCH_UNION_AGGREGATE, SketchSum } from './sketch.js';
import {
  bucketOf,
  bucketText,
  iso,
  previousOf,
  type Segment,
  segmentsOf,
  spansFor,
  type Window,
  windowOf,
} from './window.js';

/** A group's totals with the error classes counted beside them; its sketches summed at the end. */
interface Group {
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
const emptyGroup = (): Group => ({
  count: 0,
  latencyMax: 0,
  latencySum: 0,
  requestBytes: 0,
  responseBytes: 0,
  status4xx: 0,
  status5xx: 0,
  latencies: new SketchSum(),
});

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

/** A stored row of any span, by ids, and the start of its bucket; `bins` its sketch read once (a remembered row). */
type Row = StoredMinute & {
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
function addRow(g: Group, row: Row): void {
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
async function segmentRows(
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
function mergedRows(rows: readonly Row[], key: (row: Row) => string): Row[] {
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

const dimsKey = (row: Row) => `${row.route_id} ${row.method} ${row.domain_id} ${row.status_class}`;

/** A row's object, its ids and its arrays, roughly; a bin's two numbers take 16 more. */
const ROW_BYTES = 400;

/** What rows take, roughly; no fewer than one row's, so that an empty block counts too. */
const rowsBytes = (rows: readonly Row[]): number =>
  Math.max(
    ROW_BYTES,
    rows.reduce((n, r) => n + ROW_BYTES + 8 * ((r.bins?.stores[0].length ?? 0) + (r.bins?.stores[1].length ?? 0)), 0),
  );

/**
 * A remembered block: its rows per route, method, domain and status class, each sketch read into
 * its bins once, not at every read; and, made at the first read that asks, the same rows summed
 * per group of a `by`, which is all a read without `where` or `route` needs of it (a third of the
 * rows: status classes and domains are one group there).
 */
class Block {
  private readonly parts = new Map<StatsGrouping, Row[]>();
  readonly rows: readonly Row[];

  constructor(stored: readonly Row[], backend: Store['dialect']['backend']) {
    const summed = backend === 'sqlite' ? stored : mergedRows(stored, dimsKey);
    this.rows = summed.map((row) => (row.bins ? row : { ...row, sketch: null, bins: binsOf(row.sketch) }));
  }

  partsBy(by: StatsGrouping): readonly Row[] {
    let parts = this.parts.get(by);
    if (!parts) this.parts.set(by, (parts = mergedRows(this.rows, (row) => idKey(by, row))));
    return parts;
  }

  /**
   * What it takes, roughly (`rowsBytes`): three times its rows, for them and the parts of up to
   * two groupings (fewer rows each).
   */
  get bytes(): number {
    return 3 * rowsBytes(this.rows);
  }
}

/**
 * What is remembered per open database (one per daemon; tests open several): blocks, and the
 * closed part of a window summed per group of a `by`, which the refreshes of one window within a
 * minute share (its closed part moves a minute at a time).
 */
interface Remembered {
  readonly blocks: ClosedBlocks<Block>;
  readonly windows: ClosedBlocks<readonly Row[]>;
}
const rememberedBy = new WeakMap<Store['db'], Remembered>();
const WINDOWS_BUDGET = 8 * 1024 * 1024;

function rememberedOf(db: Store['db']): Remembered {
  let remembered = rememberedBy.get(db);
  if (!remembered)
    rememberedBy.set(
      db,
      (remembered = { blocks: new ClosedBlocks<Block>(), windows: new ClosedBlocks<readonly Row[]>(WINDOWS_BUDGET) }),
    );
  return remembered;
}

/**
 * The rows of a window's totals (closed-blocks.ts, docs/decisions.md §21.9): the part that ended
 * `CLOSED_MS` before `now` from the blocks this daemon remembers, if the source's counter of late
 * writes is what it was when they were read (else read again, and kept if the counter did not
 * move meanwhile); the last minutes from the database. Blocks hold every route: a `route` filters
 * them. `by`, for a read without `where` or `route`: a block gives its rows summed per group.
 */
async function totalsRows(
  store: Store,
  sourceId: string,
  window: Window,
  routeId: string | undefined,
  by: StatsGrouping | undefined,
  now: number,
  into: Row[],
): Promise<void> {
  const cut = Math.min(window.until, Math.max(window.since, Math.floor(now / 60_000) * 60_000 - CLOSED_MS));
  const blocks = segmentsOf({ since: window.since, until: cut }).flatMap(blocksOf);
  if (blocks.length > 0) {
    const { blocks: kept, windows } = rememberedOf(store.db);
    const epoch = await epochOf(store.db, sourceId);
    const whole = by === undefined ? undefined : `${by} ${window.since} ${cut}`;
    const summed = whole === undefined ? undefined : windows.get(sourceId, epoch, whole);
    if (summed) for (const row of summed) into.push(row);
    else {
      const read: [Segment, Block][] = [];
      const closed: Row[] = [];
      for (const segment of blocks) {
        let block = kept.get(sourceId, epoch, blockKey(segment));
        if (!block) {
          block = new Block(await segmentRows(store, sourceId, segment, undefined, true), store.dialect.backend);
          read.push([segment, block]);
        }
        if (by !== undefined) for (const row of block.partsBy(by)) closed.push(row);
        else for (const row of block.rows) if (routeId === undefined || row.route_id === routeId) closed.push(row);
      }
      const merged = by === undefined ? closed : mergedRows(closed, (row) => idKey(by, row));
      for (const row of merged) into.push(row);
      if ((await epochOf(store.db, sourceId)) === epoch) {
        for (const [segment, block] of read) kept.set(sourceId, epoch, blockKey(segment), block, block.bytes);
        if (whole !== undefined) windows.set(sourceId, epoch, whole, merged, rowsBytes(merged));
      }
    }
  }
  for (const segment of segmentsOf({ since: cut, until: window.until }))
    for (const row of await segmentRows(store, sourceId, segment, routeId, true)) into.push(row);
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

/** A row's group, without building its names: the ids a `by` reads, which name one group each. */
function idKey(by: StatsGrouping, row: Row): string {
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
