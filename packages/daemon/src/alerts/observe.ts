import { compare, metricKind, parseFilter } from '@tapline/shared/lean';
import type { AlertBaseline, AlertMetric, StatsNumbers } from '@tapline/shared';
import type { Store } from '../db/open.js';
import { readWindowTotal } from '../route-stats/read.js';
import { iso, windowOf } from '../route-stats/window.js';
import type { AlertRuleRow } from './table.js';

/** What a rule is observed in: the store, and `--stats-retention`, past which nothing counts. */
type Observed = Store & { readonly statsRetentionMs: number | null };

/** What one evaluation saw: the metric over the window and whether the condition held. */
export interface Observation {
  readonly met: boolean;
  /** Null when the window held no request (a percentile or a rate of nothing). */
  readonly value: number | null;
  /** What the value was compared with: the rule's threshold, or factor × the baseline's median. */
  readonly threshold: number | null;
  readonly requests: number;
  readonly window: { readonly since: string; readonly until: string };
  readonly baseline: AlertBaseline | null;
}

const DAY = 86_400_000;

/**
 * The metric of a window's numbers. Requests are per minute of the time the window has really
 * covered (`now` − its start, which the minute rows widen down to a whole minute), so a partly
 * elapsed current minute does not read as a drop in traffic.
 */
export function metricOf(metric: AlertMetric, n: StatsNumbers, coveredMs: number): number | null {
  switch (metric) {
    case 'p50':
    case 'p90':
    case 'p95':
    case 'p99':
      return n[metric];
    case 'error_rate':
      return n.count === 0 ? null : n.status5xx / n.count;
    case 'client_error_rate':
      return n.count === 0 ? null : n.status4xx / n.count;
    case 'requests':
      return (n.count * 60_000) / Math.max(60_000, coveredMs);
  }
}

/** `--min-requests` keeps a quiet window from counting; a traffic rule counts every window. */
const enough = (rule: AlertRuleRow, requests: number) =>
  metricKind(rule.metric) === 'traffic' || requests >= rule.min_requests;

interface Measured {
  readonly value: number | null;
  readonly requests: number;
  readonly since: number;
  readonly until: number;
}

async function measure(store: Observed, rule: AlertRuleRow, until: number): Promise<Measured> {
  const query = {
    since: iso(until - rule.window_ms),
    until: iso(until),
    ...(rule.route ? { route: rule.route } : {}),
    ...(rule.method ? { where: parseFilter(`method=${rule.method}`) } : {}),
  };
  const window = windowOf(query, until);
  const numbers = await readWindowTotal(store, rule.traffic_source_id, query, until, store.statsRetentionMs);
  // Reported as read: from the widened start to the evaluation time, not to the end of its minute.
  return {
    value: metricOf(rule.metric, numbers, until - window.since),
    requests: numbers.count,
    since: window.since,
    until,
  };
}

const median = (values: readonly number[]): number | null => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? null) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};

/** The same window at the same time of day on each of the previous `days` days, and their median. */
async function baselineOf(store: Observed, rule: AlertRuleRow, now: number, days: number): Promise<AlertBaseline> {
  const figures: AlertBaseline['days'] = [];
  for (let k = 1; k <= days; k++) {
    const m = await measure(store, rule, now - k * DAY);
    figures.push({
      since: iso(m.since),
      until: iso(m.until),
      value: enough(rule, m.requests) ? m.value : null,
      requests: m.requests,
    });
  }
  return { median: median(figures.flatMap((d) => (d.value === null ? [] : [d.value]))), days: figures };
}

/** Evaluates a rule's condition at `now` from the minute rows (route-stats), never from raw traffic. */
export async function observe(store: Observed, rule: AlertRuleRow, now: Date): Promise<Observation> {
  const at = now.getTime();
  const current = await measure(store, rule, at);
  const baseline = rule.baseline_days === null ? null : await baselineOf(store, rule, at, rule.baseline_days);
  const threshold = baseline ? (baseline.median === null ? null : rule.threshold * baseline.median) : rule.threshold;
  const met =
    current.value !== null &&
    threshold !== null &&
    enough(rule, current.requests) &&
    compare(rule.operator, current.value, threshold);
  return {
    met,
    value: current.value,
    threshold,
    requests: current.requests,
    window: { since: iso(current.since), until: iso(current.until) },
    baseline,
  };
}
