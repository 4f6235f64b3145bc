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

export const BASE = Date.parse('2026-05-05T10:00:00.000Z');
/** Entries fall in the two hours after BASE. */
export const MINUTES = 120;

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
      minute: fc.oneof(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: MINUTES - 1 })),
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

/** A window aligned to minutes inside the two hours. */
export const windows = fc
  .tuple(fc.integer({ min: 0, max: MINUTES - 1 }), fc.integer({ min: 1, max: MINUTES }))
  .map(([from, length]) => ({ from, to: Math.min(MINUTES, from + length) }));

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
export async function expectExact(
  client: TaplineClient,
  sourceId: string,
  sent: readonly Sent[],
  window: { from: number; to: number },
): Promise<void> {
  const since = new Date(BASE + window.from * 60_000).toISOString();
  const until = new Date(BASE + window.to * 60_000).toISOString();
  const answer: StatsAnswer = await client.call(contract.getStats, {
    params: { trafficSourceId: sourceId },
    query: { since, until, by: 'route' },
  });
  const inside = sent.filter((s) => s.minute >= window.from && s.minute < window.to);
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
