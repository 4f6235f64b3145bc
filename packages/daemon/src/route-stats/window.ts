import { durationMs } from '@tapline/shared/lean';
import type { StatsQuery } from '@tapline/shared';
import { invalidField } from '../http/errors.js';
import { SPANS, type Span } from './rollup.js';

/** A half-open window of whole minutes, `[since, until)`, as epoch milliseconds. */
export interface Window {
  readonly since: number;
  readonly until: number;
}

const MINUTE = 60_000;
const DEFAULT_SPAN = 3_600_000;

/** A duration back from `now`, or an ISO time (the schema let only these through). */
const timeOf = (text: string, now: number): number => {
  const span = durationMs(text);
  return span !== undefined
    ? now - span
    : Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00.000Z` : text);
};

/**
 * The window a query asks for, widened to whole minutes (since down, until up), so that it is
 * aligned to the rows and its numbers are those of exactly the entries inside it. Default: the
 * last hour. An empty or inverted window is a 400 naming `since`.
 */
export function windowOf(query: Pick<StatsQuery, 'since' | 'until'>, now: number): Window {
  const until = query.until ? timeOf(query.until, now) : now;
  const since = query.since ? timeOf(query.since, now) : until - DEFAULT_SPAN;
  const window = { since: Math.floor(since / MINUTE) * MINUTE, until: Math.ceil(until / MINUTE) * MINUTE };
  if (since >= until)
    throw invalidField(
      'since',
      `since (${new Date(since).toISOString()}) must be before until (${new Date(until).toISOString()})`,
    );
  return window;
}

/**
 * The window compared with: the one just before (`previous`) or the same shifted back by a
 * duration, taken in whole minutes (`90s` is 2 minutes back).
 */
export function previousOf(window: Window, compare: string): Window {
  const shift = compare === 'previous' ? window.until - window.since : (durationMs(compare) ?? 0);
  // Whole minutes (rounded up), so that the earlier window is aligned to the rows as this one is.
  const minutes = Math.ceil(shift / MINUTE) * MINUTE;
  return { since: window.since - minutes, until: window.until - minutes };
}

const BUCKETS = [MINUTE, 5 * MINUTE, 15 * MINUTE, 3_600_000, 6 * 3_600_000, 86_400_000];
/** Points a series aims at most for, when the bucket is the daemon's choice. */
const MAX_POINTS = 120;

/** `bucket=` when given (the schema checked it is whole minutes), else the smallest that keeps a series short. */
export function bucketOf(window: Window, bucket: string | undefined): number {
  const given = bucket ? durationMs(bucket) : undefined;
  if (given !== undefined) return given;
  const span = window.until - window.since;
  return BUCKETS.find((b) => span / b <= MAX_POINTS) ?? 86_400_000;
}

/** Spelled back for `meta.bucket`: `1m`, `15m`, `1h`, `1d`. */
export function bucketText(ms: number): string {
  if (ms % 86_400_000 === 0) return `${ms / 86_400_000}d`;
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  return `${ms / MINUTE}m`;
}

export const iso = (ms: number): string => new Date(ms).toISOString();

/** A part of a window read from rows of one span (minutes: 1, 60, 1440). */
export interface Segment extends Window {
  readonly span: Span;
}

/**
 * A window cut into the fewest rows to read (docs/decisions.md §21.5): whole UTC days from day
 * rows, the whole hours around them from hour rows, the minutes at the edges from minute rows.
 * `spans` are the ones allowed, coarsest first: a series takes only spans its bucket is a whole
 * number of, so that no row straddles two points.
 */
export function segmentsOf(window: Window, spans: readonly Span[] = [1440, 60, 1]): Segment[] {
  if (window.since >= window.until) return [];
  const [span, ...finer] = spans;
  if (span === undefined) return [];
  if (finer.length === 0) return [{ ...window, span }];
  const ms = span * MINUTE;
  const from = Math.ceil(window.since / ms) * ms;
  const to = Math.floor(window.until / ms) * ms;
  if (from >= to) return segmentsOf(window, finer);
  return [
    ...segmentsOf({ since: window.since, until: from }, finer),
    { since: from, until: to, span },
    ...segmentsOf({ since: to, until: window.until }, finer),
  ];
}

/** The spans a series of `bucket` milliseconds can read (always minutes). */
export const spansFor = (bucket: number | undefined): Span[] =>
  SPANS.filter((span) => bucket === undefined || bucket % (span * MINUTE) === 0).reverse();
