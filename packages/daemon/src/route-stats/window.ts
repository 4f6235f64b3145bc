import { durationMs, type StatsQuery } from '@tapline/shared';
import { invalidField } from '../http/errors.js';

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

/** The window compared with: the one just before (`previous`) or the same shifted back by a duration. */
export function previousOf(window: Window, compare: string): Window {
  const shift = compare === 'previous' ? window.until - window.since : (durationMs(compare) ?? 0);
  return { since: window.since - shift, until: window.until - shift };
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
