import type { HttpTraffic, Level } from '@tapline/shared';

/** What the UI's header line shows; latencies in milliseconds, null when nothing is loaded. */
export interface StatsSnapshot {
  /** Requests per second over the last RATE_WINDOW_MS (short, so the rate reacts quickly). */
  readonly perSecond: number;
  /** Loaded entries by level. */
  readonly levels: Readonly<Record<Level, number>>;
  readonly p50: number | null;
  readonly p95: number | null;
}

export const RATE_WINDOW_MS = 10_000;

/**
 * The header's figures over the entries the table holds (the first page, older pages fetched,
 * and what arrived live), so they describe the rows on screen whatever their age; only the rate
 * looks at the clock, keyed on each entry's `createdAt`.
 */
export function tableStats(entries: readonly HttpTraffic[], now: number): StatsSnapshot {
  const levels: Record<Level, number> = { INFO: 0, WARNING: 0, FATAL: 0 };
  const latencies: number[] = [];
  const since = now - RATE_WINDOW_MS;
  let recent = 0;
  for (const e of entries) {
    levels[e.level] += 1;
    latencies.push(e.elapsedTime);
    if (Date.parse(e.createdAt) >= since) recent += 1;
  }
  latencies.sort((a, b) => a - b);
  return {
    perSecond: recent / (RATE_WINDOW_MS / 1000),
    levels,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
  };
}

/** Nearest-rank percentile of ascending values. */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] ?? null;
}
