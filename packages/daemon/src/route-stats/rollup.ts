import type { HttpMethod } from '@tapline/shared';
import type { Selectable } from 'kysely';
import { binOf, binsOf, Tally } from './sketch.js';
import type { RouteStatsTable } from './table.js';

/** What the statistics take of one stored entry. */
export interface StatInput {
  readonly sourceId: string;
  readonly routeId: string;
  readonly method: HttpMethod;
  readonly domainId: string;
  readonly createdAt: string;
  readonly status: number;
  readonly elapsedTime: number;
  readonly requestBytes: number;
  readonly responseBytes: number;
}

/** The numbers of a set of entries as they add up: a row's columns, the latencies as a tally of the sketch's bins. */
export interface Totals {
  count: number;
  latencyMax: number;
  latencySum: number;
  requestBytes: number;
  responseBytes: number;
  sketch: Tally;
}

/**
 * How long a row's bucket is, in minutes: a minute row (`route_stats`), or an hour or a day row
 * (`route_rollups`, docs/decisions.md §21.5). Every entry is added to one row of each.
 */
export const SPANS = [1, 60, 1440] as const;
export type Span = (typeof SPANS)[number];
/** The spans of `route_rollups`' rows: hours and days. */
const ROLLUP_SPANS = SPANS.slice(1);

/** One row's key (its bucket's start and span) and its totals. */
export interface BucketTotals extends Totals {
  readonly sourceId: string;
  readonly span: Span;
  /** The bucket's start, ISO 8601 UTC with milliseconds. */
  readonly start: string;
  readonly routeId: string;
  readonly method: HttpMethod;
  readonly domainId: string;
  readonly statusClass: number;
}

/** The minute an ISO time falls in, in the same form (`2026-05-05T10:07:00.000Z`). */
export const minuteOf = (iso: string): string => `${iso.slice(0, 16)}:00.000Z`;

/** The start of the bucket of `span` minutes an ISO time falls in (hours and days of UTC). */
export const startOf = (iso: string, span: Span): string =>
  span === 1 ? minuteOf(iso) : span === 60 ? `${iso.slice(0, 13)}:00:00.000Z` : `${iso.slice(0, 10)}T00:00:00.000Z`;

/** 1 for 1xx … 5 for 5xx (compose takes 100..599 only). */
export const statusClassOf = (status: number): number => Math.min(5, Math.max(1, Math.floor(status / 100)));

/** UTF-8 bytes of a body's JSON text as stored (0 without a body): what requestBytes and responseBytes add up. */
export const bodyBytes = (json: string | null): number => (json === null ? 0 : Buffer.byteLength(json));

/** What names one row: its key. */
export type Keyed = Pick<
  BucketTotals,
  'sourceId' | 'span' | 'start' | 'routeId' | 'method' | 'domainId' | 'statusClass'
>;

/**
 * The key rows are locked and written in, which every writer takes them in: both tables' primary
 * key order (minute rows have span 1; hour and day rows share a table whose key is source, span,
 * start, …). Writers take the minute table before the other (writer.ts `LEVELS`); within one, a
 * chunk's keys and its `order by` agree, so no two writers lock the same rows in opposite orders.
 */
export const keyOf = (t: Omit<Keyed, 'span'> & { readonly span: number }): string =>
  `${t.sourceId} ${String(t.span).padStart(4, '0')} ${t.start} ${t.routeId} ${t.method} ${t.domainId} ${t.statusClass}`;

export const emptyTotals = (): Totals => ({
  count: 0,
  latencyMax: 0,
  latencySum: 0,
  requestBytes: 0,
  responseBytes: 0,
  sketch: new Tally(),
});

/**
 * A row's key with empty totals. Not `{ ...keyed, ...emptyTotals() }`: an object built by two
 * spreads was five times slower to add to, which made summing a batch of 1,000 entries take 40 ms
 * instead of 8 (`Object.assign` onto a literal is as fast as the literal written out).
 */
const bucketTotals = (keyed: Keyed): BucketTotals => Object.assign(emptyTotals(), keyed);

/** One entry's numbers added to `totals`, its latency's bin worked out already (`binOf`). */
function addInput(totals: Totals, input: StatInput, bin: ReturnType<typeof binOf>): void {
  totals.count += 1;
  totals.latencyMax = Math.max(totals.latencyMax, input.elapsedTime);
  totals.latencySum += input.elapsedTime;
  totals.requestBytes += input.requestBytes;
  totals.responseBytes += input.responseBytes;
  totals.sketch.addBin(bin, 1);
}

/** A row's numbers added to another's (a minute's into its hour and its day). */
function addTotals(into: Totals, from: Totals): void {
  into.count += from.count;
  into.latencyMax = Math.max(into.latencyMax, from.latencyMax);
  into.latencySum += from.latencySum;
  into.requestBytes += from.requestBytes;
  into.responseBytes += from.responseBytes;
  into.sketch.add(from.sketch);
}

const compared = (a: string | number, b: string | number): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Two rows' keys in `keyOf`'s order, field by field (every field but the method has a fixed
 * length, and the space after the method sorts below any character of one): no key is written out.
 */
export const byKey = (a: Keyed, b: Keyed): number =>
  compared(a.sourceId, b.sourceId) ||
  a.span - b.span ||
  compared(a.start, b.start) ||
  compared(a.routeId, b.routeId) ||
  compared(a.method, b.method) ||
  compared(a.domainId, b.domainId) ||
  a.statusClass - b.statusClass;

/**
 * Rows of one span by their bucket's start, then by route id; a route's rows (one a method, domain,
 * status class and source, a handful) in a list. Looked up through the strings the inputs carry,
 * whose hashes V8 keeps, where a key written out for each entry was half of `totalsOf`'s time.
 */
class Bucketed {
  readonly #byStart = new Map<string, Map<string, BucketTotals[]>>();

  constructor(
    readonly span: Span,
    private readonly all: BucketTotals[],
  ) {}

  /** The row of this key, made empty (and added to `all`) the first time. */
  rowOf(
    start: string,
    k: Pick<Keyed, 'sourceId' | 'routeId' | 'method' | 'domainId'>,
    statusClass: number,
  ): BucketTotals {
    let routes = this.#byStart.get(start);
    if (!routes) this.#byStart.set(start, (routes = new Map<string, BucketTotals[]>()));
    let rows = routes.get(k.routeId);
    if (!rows) routes.set(k.routeId, (rows = []));
    for (const row of rows)
      if (
        row.method === k.method &&
        row.statusClass === statusClass &&
        row.domainId === k.domainId &&
        row.sourceId === k.sourceId
      )
        return row;
    const { sourceId, routeId, method, domainId } = k;
    const row = bucketTotals({ sourceId, span: this.span, start, routeId, method, domainId, statusClass });
    rows.push(row);
    this.all.push(row);
    return row;
  }
}

/**
 * The inputs summed per row key, of every span, sorted by key (`keyOf`'s order). Each entry is
 * summed into its minute once, its latency's bin worked out once; hours and days are then summed
 * from the minutes (a batch of live traffic has about two entries a minute row). Three keys and
 * three sketches per entry, and the keys written out to be sorted, were most of this function's
 * time and allocations; then the one key a minute row still had written out for each entry, half
 * of what was left.
 */
export function totalsOf(inputs: readonly StatInput[]): BucketTotals[] {
  const all: BucketTotals[] = [];
  const minutes = new Bucketed(1, all);
  // Entries come in bursts of one minute: its start is written out once a burst, not once an entry.
  let minute = '';
  let minutePrefix = '';
  for (const input of inputs) {
    if (minute === '' || !input.createdAt.startsWith(minutePrefix)) {
      minute = minuteOf(input.createdAt);
      minutePrefix = minute.slice(0, 16);
    }
    addInput(minutes.rowOf(minute, input, statusClassOf(input.status)), input, binOf(input.elapsedTime));
  }
  const minuteRows = all.slice();
  for (const span of ROLLUP_SPANS) {
    const rollups = new Bucketed(span, all);
    for (const row of minuteRows) addTotals(rollups.rowOf(startOf(row.start, span), row, row.statusClass), row);
  }
  return all.sort(byKey);
}

/** A row's numbers as its columns, the sketch in its stored form. */
export const numbersOf = (t: Omit<Totals, 'sketch'> & { readonly sketch: Pick<Tally, 'encode'> }) => ({
  count: t.count,
  latency_max: t.latencyMax,
  latency_sum: t.latencySum,
  request_bytes: t.requestBytes,
  response_bytes: t.responseBytes,
  sketch: t.sketch.encode(),
});

export type StoredMinute = Pick<
  Selectable<RouteStatsTable>,
  'count' | 'latency_max' | 'latency_sum' | 'request_bytes' | 'response_bytes' | 'sketch'
>;

/** Adds a stored row's numbers into `totals` (bigints arrive as text from PostgreSQL). */
export function addStored(totals: Totals, row: StoredMinute): void {
  totals.count += Number(row.count);
  totals.latencyMax = Math.max(totals.latencyMax, Number(row.latency_max));
  totals.latencySum += Number(row.latency_sum);
  totals.requestBytes += Number(row.request_bytes);
  totals.responseBytes += Number(row.response_bytes);
  totals.sketch.add(binsOf(row.sketch));
}
