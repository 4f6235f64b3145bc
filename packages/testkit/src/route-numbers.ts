import { contract, type StatsAnswer, type StatsNumbers, type StatsQuery, type TaplineClient } from '@tapline/shared';
import { expect } from 'vitest';

/** One stored entry as the numbers see it. */
export interface Measured {
  readonly status: number;
  /** Milliseconds, as stored (`elapsedTime`). */
  readonly latency: number;
}

export const PERCENTILES = [
  ['p50', 0.5],
  ['p90', 0.9],
  ['p95', 0.95],
  ['p99', 0.99],
] as const;

/**
 * The exact percentile `q` of ascending latencies in DDSketch's sense of rank: the value at index
 * floor(q × (n − 1)). The daemon's answer is held to within 1 % of it (docs/statistics.md).
 */
export function exactPercentile(sorted: readonly number[], q: number): number {
  return sorted[Math.floor(q * (sorted.length - 1))] ?? 0;
}

/**
 * A group of `GET /stats` against the stored entries it counts: count and error classes equal, the
 * maximum equal, each percentile within 1 % of the exact one (plus the 0.001 ms the answer is
 * rounded to).
 */
export function expectNumbersOf(group: StatsNumbers | undefined, entries: readonly Measured[], label: string): void {
  const sorted = entries.map((e) => e.latency).sort((a, b) => a - b);
  expect(group, label).toMatchObject({
    count: entries.length,
    status4xx: entries.filter((e) => e.status >= 400 && e.status < 500).length,
    status5xx: entries.filter((e) => e.status >= 500).length,
  });
  expect(group?.max, `${label} max`).toBeCloseTo(sorted[sorted.length - 1] ?? 0, 2);
  for (const [key, q] of PERCENTILES) {
    const exact = exactPercentile(sorted, q);
    const got = group?.[key] ?? Number.NaN;
    expect(Math.abs(got - exact), `${label} ${key}: ${got} against ${exact}`).toBeLessThanOrEqual(
      exact * 0.01 + 0.0011,
    );
  }
}

/**
 * The answers of `GET /stats` over one window that a copy of a database must give as its original
 * does: by route and method, the same with a series per bucket, by route in 5-minute buckets, and
 * by status class.
 */
export async function statsViews(
  client: TaplineClient,
  sourceId: string,
  window: { readonly since: string; readonly until: string },
): Promise<StatsAnswer[]> {
  const ask = (query: Pick<StatsQuery, 'by' | 'series' | 'bucket'>) =>
    client.call(contract.getStats, { params: { trafficSourceId: sourceId }, query: { ...window, ...query } });
  return Promise.all([
    ask({}),
    ask({ series: '1' }),
    ask({ by: 'route', series: '1', bucket: '5m' }),
    ask({ by: 'status' }),
  ]);
}
