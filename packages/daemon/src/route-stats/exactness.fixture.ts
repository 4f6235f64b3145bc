import { contract, type StatsAnswer, type TaplineClient } from '@tapline/shared';
import fc from 'fast-check';
import { expect } from 'vitest';

/** One generated entry: where it goes, when it happened, how it answered. */
export interface Sent {
  readonly path: string;
  readonly template: string;
  readonly minute: number;
  readonly second: number;
  readonly status: number;
  readonly latency: number;
}

/**
 * Entries fall in the three days after BASE, which is two hours before a UTC midnight: windows
 * then take day rows, hour rows and minute rows together (docs/decisions.md §21.5).
 */
export const BASE = Date.parse('2026-05-03T22:00:00.000Z');
export const MINUTES = 3 * 1440;

/**
 * Latencies as services have them: skewed (log-normal), two modes far apart (a cache hit and a
 * miss), a heavy tail (Pareto), plus exact zeros and sub-millisecond values.
 */
const latency = fc.oneof(
  fc
    .tuple(fc.double({ min: -2, max: 2, noNaN: true }), fc.double({ min: -2, max: 2, noNaN: true }))
    .map(([a, b]) => Math.exp(3 + (a + b) * 0.8)),
  fc
    .tuple(fc.boolean(), fc.double({ min: 0, max: 1, noNaN: true }))
    .map(([hit, u]) => (hit ? 2 + u * 3 : 800 + u * 400)),
  fc.double({ min: 0.001, max: 1, noNaN: true }).map((u) => 10 / Math.pow(u, 1 / 1.2)),
  fc.constantFrom(0, 0.25, 0.999),
);

const routes = [
  { path: (n: number) => `/users/${n}`, template: '/users/{id}' },
  { path: (n: number) => `/orders/${n}/items`, template: '/orders/{id}/items' },
  { path: () => '/health', template: '/health' },
];

export const sentEntries = fc
  .array(
    fc.record({
      route: fc.integer({ min: 0, max: routes.length - 1 }),
      n: fc.integer({ min: 1, max: 99_999 }),
      // Most in a few busy minutes, so rows are written by several transactions and merged.
      minute: fc.oneof(
        fc.integer({ min: 0, max: 4 }),
        fc.integer({ min: 118, max: 122 }),
        fc.integer({ min: 0, max: MINUTES - 1 }),
      ),
      second: fc.integer({ min: 0, max: 59 }),
      status: fc.constantFrom(200, 200, 200, 201, 304, 404, 429, 500, 503),
      latency,
    }),
    { minLength: 1, maxLength: 250, size: 'max' },
  )
  .map((items) =>
    items.map(({ route, n, ...rest }): Sent => ({
      ...rest,
      path: routes[route]?.path(n) ?? '/',
      template: routes[route]?.template ?? '/',
    })),
  );

/** A window aligned to minutes inside the three days (often to hours), and the bucket a series of it asks for. */
export const windows = fc
  .tuple(
    fc.oneof(
      fc.integer({ min: 0, max: MINUTES - 1 }),
      fc.integer({ min: 0, max: 71 }).map((h) => h * 60),
    ),
    fc.oneof(
      fc.integer({ min: 1, max: MINUTES }),
      fc.integer({ min: 1, max: 72 }).map((h) => h * 60),
    ),
    fc.constantFrom('5m', '1h', '6h', '1d'),
  )
  .map(([from, length, bucket]) => ({ from, to: Math.min(MINUTES, from + length), bucket }));

export const bodyOf = (sourceId: string, s: Sent) => ({
  domainUrl: 'https://shop.example.com',
  pathnameUrl: s.path,
  trafficSourceId: sourceId,
  status: s.status,
  protocol: 'HTTPS',
  method: 'GET',
  elapsedTime: s.latency,
  requestHeaders: {},
  requestBody: null,
  queryParams: {},
  responseHeaders: {},
  responseBody: null,
  startedAt: new Date(BASE + s.minute * 60_000 + s.second * 1000).toISOString(),
});

/** The window's numbers from the stats endpoint against the same numbers computed from what was sent. */
/** Records `sent` through the batch endpoint of the daemon at `url`, `chunk` entries a batch, each answered 201. */
export async function recordSent(
  url: string,
  token: string,
  sourceId: string,
  sent: readonly Sent[],
  chunk = 50,
): Promise<void> {
  for (let i = 0; i < sent.length; i += chunk) {
    const response = await fetch(`${url}/http-traffic-record/${sourceId}/batch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(sent.slice(i, i + chunk).map((s) => bodyOf(sourceId, s))),
    });
    const text = await response.text();
    expect(response.status, text).toBe(201);
  }
}

export async function expectExact(
  client: TaplineClient,
  sourceId: string,
  sent: readonly Sent[],
  window: { from: number; to: number; bucket?: string },
): Promise<void> {
  const since = new Date(BASE + window.from * 60_000).toISOString();
  const until = new Date(BASE + window.to * 60_000).toISOString();
  const series = window.bucket ? { series: '1' as const, bucket: window.bucket } : {};
  const answer: StatsAnswer = await client.call(contract.getStats, {
    params: { trafficSourceId: sourceId },
    query: { since, until, by: 'route', ...series },
  });
  const inside = sent.filter((s) => s.minute >= window.from && s.minute < window.to);
  if (window.bucket) expectSeries(answer, inside, window.bucket);
  const templates = [...new Set(inside.map((s) => s.template))].sort();
  expect(answer.data.map((g) => g.route).sort()).toEqual(templates);
  for (const template of templates) {
    const mine = inside.filter((s) => s.template === template);
    const group = answer.data.find((g) => g.route === template);
    const sorted = mine.map((s) => s.latency).sort((a, b) => a - b);
    expect(group).toMatchObject({
      count: mine.length,
      status4xx: mine.filter((s) => s.status >= 400 && s.status < 500).length,
      status5xx: mine.filter((s) => s.status >= 500).length,
    });
    expect(group?.max).toBeCloseTo(sorted[sorted.length - 1] ?? 0, 2);
    for (const [key, q] of [
      ['p50', 0.5],
      ['p90', 0.9],
      ['p95', 0.95],
      ['p99', 0.99],
    ] as const) {
      // DDSketch's rank: the value at index floor(q × (n − 1)) of the sorted latencies.
      const exact = sorted[Math.floor(q * (sorted.length - 1))] ?? 0;
      const got = group?.[key] ?? Number.NaN;
      // Within 1 % of the exact value, plus the 0.001 ms the answer is rounded to.
      expect(Math.abs(got - exact), `${template} ${key}: ${got} against ${exact}`).toBeLessThanOrEqual(
        exact * 0.01 + 0.0011,
      );
    }
  }
}

const BUCKET_MINUTES: Record<string, number> = { '5m': 5, '1h': 60, '6h': 360, '1d': 1440 };

/** Each point's count is that of the entries in its bucket (buckets aligned to the epoch, as the daemon's). */
function expectSeries(answer: StatsAnswer, inside: readonly Sent[], bucket: string): void {
  const width = (BUCKET_MINUTES[bucket] ?? 1) * 60_000;
  for (const group of answer.data) {
    const counts = new Map<string, number>();
    for (const s of inside.filter((e) => e.template === group.route)) {
      const start = new Date(Math.floor((BASE + s.minute * 60_000) / width) * width).toISOString();
      counts.set(start, (counts.get(start) ?? 0) + 1);
    }
    const points = (group.series ?? []).filter((p) => p.count > 0);
    expect(Object.fromEntries(points.map((p) => [p.start, p.count])), `${group.route} by ${bucket}`).toEqual(
      Object.fromEntries(counts),
    );
  }
}
