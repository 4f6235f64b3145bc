import { contract, type TaplineClient } from '@tapline/shared';
import { afterEach, describe, expect, it } from 'vitest';
import {
  composeBody,
  createSource,
  expectError,
  type Harness,
  manualClock,
  rawJson,
  startHarness,
} from '@tapline/testkit/daemon';
import { exactPercentile, PERCENTILES } from '@tapline/testkit';
import { DEFAULT_POLICY } from '../retention/options.js';

const NOW = '2026-05-05T12:00:30.000Z';
const DAY = 86_400_000;

describe('GET /stats/:trafficSourceId (issue 26)', () => {
  let h: Harness;
  let client: TaplineClient;
  let token: string;
  let sourceId: string;
  const clock = manualClock(NOW);

  async function start(config: Parameters<typeof startHarness>[0] = {}) {
    clock.set(NOW);
    h = await startHarness({ clock, pruner: { start: false }, routeBackfill: { start: false }, ...config });
    const user = await h.user();
    client = user.client;
    token = user.token;
    sourceId = (await createSource(client)).id;
  }
  afterEach(() => h.close());

  const batch = (items: Record<string, unknown>[]) =>
    rawJson(
      h,
      'POST',
      `/http-traffic-record/${sourceId}/batch`,
      token,
      items.map((o) => composeBody(sourceId, o)),
    );
  const stats = (query: Record<string, string> = {}) =>
    client.call(contract.getStats, { params: { trafficSourceId: sourceId }, query });
  const at = (iso: string) => ({ startedAt: iso });

  it('answers per route and method: counts, error classes, percentiles within 1 %, max and bytes', async () => {
    await start();
    const latencies = [5, 7, 9, 11, 13, 200, 15, 17, 19, 1200];
    await batch(
      latencies.map((elapsedTime, i) => ({
        pathnameUrl: `/users/${i + 1}`,
        elapsedTime,
        status: i === 5 ? 503 : i === 9 ? 404 : 200,
        ...at('2026-05-05T11:30:00.000Z'),
        requestBody: { n: i },
        responseBody: null,
      })),
    );
    await batch([
      { pathnameUrl: '/health', method: 'GET', elapsedTime: 1, ...at('2026-05-05T11:31:00.000Z') },
      { pathnameUrl: '/users/1', method: 'DELETE', elapsedTime: 3, ...at('2026-05-05T11:31:00.000Z') },
    ]);
    const answer = await stats();
    expect(answer.meta).toMatchObject({
      since: '2026-05-05T11:00:00.000Z',
      until: '2026-05-05T12:01:00.000Z',
      by: 'route,method',
    });
    expect(answer.data.map((g) => [g.method, g.route, g.count])).toEqual([
      ['GET', '/users/{id}', 10],
      ['GET', '/health', 1],
      ['DELETE', '/users/{id}', 1],
    ]);
    const users = answer.data[0];
    const sorted = [...latencies].sort((a, b) => a - b);
    const exact = (q: number) => exactPercentile(sorted, q);
    for (const [key, q] of PERCENTILES) {
      expect(Math.abs((users?.[key] ?? 0) - exact(q)) / exact(q), key).toBeLessThanOrEqual(0.01);
    }
    expect(users).toMatchObject({ status4xx: 1, status5xx: 1, errorRate: 0.2, max: 1200, responseBytes: 0 });
    expect(users?.requestBytes).toBe(
      latencies.reduce((sum, _l, i) => sum + Buffer.byteLength(JSON.stringify({ n: i })), 0),
    );

    expect((await stats({ by: 'status' })).data.map((g) => [g.status, g.count])).toEqual([
      ['2xx', 10],
      ['4xx', 1],
      ['5xx', 1],
    ]);
    expect((await stats({ by: 'method' })).data.map((g) => [g.method, g.count])).toEqual([
      ['GET', 11],
      ['DELETE', 1],
    ]);
    expect(
      (await stats({ by: 'route', where: 'status>=500 or level=WARNING' })).data.map((g) => [g.route, g.count, g.max]),
    ).toEqual([['/users/{id}', 2, 1200]]);
    expect((await stats({ route: '/users/:id', by: 'route' })).data.map((g) => g.count)).toEqual([11]);
    expect(
      (await stats({ since: '2026-05-05T11:31:00Z', until: '2026-05-05T11:31:59Z', by: 'route' })).data.map((g) => [
        g.route,
        g.count,
      ]),
    ).toEqual([
      ['/health', 1],
      ['/users/{id}', 1],
    ]);
  });

  it('compares with the previous window or one a duration back, and gives a series per bucket', async () => {
    await start();
    await batch(
      Array.from({ length: 4 }, () => ({
        pathnameUrl: '/orders/1',
        elapsedTime: 10,
        ...at('2026-05-05T10:30:00.000Z'),
      })),
    );
    await batch(
      Array.from({ length: 6 }, (_, i) => ({
        pathnameUrl: '/orders/2',
        elapsedTime: 20,
        status: i < 3 ? 500 : 200,
        ...at('2026-05-05T11:45:00.000Z'),
      })),
    );
    await batch([{ pathnameUrl: '/orders/3', elapsedTime: 30, ...at('2026-05-04T11:45:00.000Z') }]);
    const previous = await stats({ since: '1h', until: '0s', compare: 'previous', by: 'route' });
    // The window is widened to whole minutes (11:00 to 12:01), and the previous one is as long.
    expect(previous.meta.previous).toEqual({ since: '2026-05-05T09:59:00.000Z', until: '2026-05-05T11:00:00.000Z' });
    expect(previous.data[0]).toMatchObject({
      route: '/orders/{id}',
      count: 6,
      status5xx: 3,
      previous: { count: 4, status5xx: 0 },
    });
    const dayBack = await stats({ since: '30m', compare: '1d', by: 'route' });
    expect(dayBack.data[0]?.previous?.count).toBe(1);
    const series = await stats({ since: '30m', series: '1', bucket: '15m', by: 'route' });
    expect(series.meta.bucket).toBe('15m');
    expect(series.data[0]?.series?.map((p) => [p.start, p.count, p.status5xx])).toEqual([
      ['2026-05-05T11:30:00.000Z', 0, 0],
      ['2026-05-05T11:45:00.000Z', 6, 3],
      ['2026-05-05T12:00:00.000Z', 0, 0],
    ]);
  });

  it('refuses bad parameters with a 400 naming them, and answers 400 without a token, 401, 403 and 404 as every source route does', async () => {
    await start();
    const bad = async (query: string, name: string) => {
      const answer = await rawJson(h, 'GET', `/stats/${sourceId}?${query}`, token);
      expect(answer.status, query).toBe(400);
      expect(answer.text, query).toContain(name);
    };
    await bad('since=yesterday', 'since');
    await bad('until=2026-13-01', 'until');
    await bad('since=1h&until=2h', 'since');
    await bad('by=path', 'by');
    await bad('bucket=90s', 'bucket');
    await bad('compare=last', 'compare');
    await bad('series=yes', 'series');
    await bad('where=latency>5', 'latency is not kept');
    await bad('where=status=503', 'status is kept by class');
    await bad('where=stauts=5xx', 'column');
    expect((await rawJson(h, 'GET', `/stats/${sourceId}`, undefined)).status).toBe(400);
    expect((await rawJson(h, 'GET', `/stats/${sourceId}`, 'not-a-token')).status).toBe(401);
    const other = await h.user();
    await expectError(other.client.call(contract.getStats, { params: { trafficSourceId: sourceId }, query: {} }), 403);
    await expectError(
      client.call(contract.getStats, {
        params: { trafficSourceId: '01a1fc8d-93a2-767e-92f3-e5a71388f88b' },
        query: {},
      }),
      404,
    );
  });

  it('keeps the numbers when raw entries are pruned; --stats-retention prunes them separately and says so in meta', async () => {
    await start({ config: { retention: { ...DEFAULT_POLICY, maxAgeMs: 30 * DAY } } });
    await batch(
      [10, 20, 30].map((elapsedTime) => ({ pathnameUrl: '/old/1', elapsedTime, ...at('2026-03-01T10:00:00.000Z') })),
    );
    await batch([{ pathnameUrl: '/new/1', elapsedTime: 5, ...at('2026-05-05T11:59:00.000Z') }]);
    const window = { since: '2026-03-01T00:00:00Z', by: 'route' };
    const before = await stats(window);
    expect(before.data.map((g) => [g.route, g.count])).toEqual([
      ['/old/{id}', 3],
      ['/new/{id}', 1],
    ]);
    expect((await h.pruner.runNow()).entries).toBe(3);
    expect(
      (await client.call(contract.listTraffic, { params: { trafficSourceId: sourceId }, query: {} })).meta.total,
    ).toBe(1);
    expect(await stats(window)).toEqual(before);

    await h.close();
    await start({ config: { stats: { enabled: true, retentionMs: 30 * DAY } } });
    await batch([
      { pathnameUrl: '/old/1', elapsedTime: 10, ...at('2026-03-01T10:00:00.000Z') },
      { pathnameUrl: '/new/1', elapsedTime: 5, ...at('2026-05-05T11:59:00.000Z') },
    ]);
    // Its minute, its hour and its day.
    expect(await h.statsPruner.runNow()).toBe(3);
    const kept = await stats(window);
    expect(kept.data.map((g) => [g.route, g.count])).toEqual([['/new/{id}', 1]]);
    expect(kept.meta.retention?.keptSince).toBe('2026-04-05T12:00:00.000Z');
  });

  it('writes no numbers with --no-stats', async () => {
    await start({ config: { stats: { enabled: false, retentionMs: null } } });
    expect((await batch([{ pathnameUrl: '/users/1' }])).status).toBe(201);
    expect((await stats()).data).toEqual([]);
    expect(await h.deps.db.selectFrom('route_stats').selectAll().execute()).toEqual([]);
  });

  it('lists route templates with their origin and stored entries', async () => {
    await start();
    await batch([{ pathnameUrl: '/users/1' }, { pathnameUrl: '/users/2' }, { pathnameUrl: '/cart', route: '/cart' }]);
    const routes = await client.call(contract.listRoutes, { params: { trafficSourceId: sourceId }, query: {} });
    expect(routes.data.map((r) => [r.template, r.origin, r.entries]).sort()).toEqual([
      ['/cart', 'sent', 1],
      ['/users/{id}', 'inferred', 2],
    ]);
  });

  // A daemon answers the closed part of a window from blocks it read before (closed-blocks.ts,
  // decisions §21.9): every write that changes numbers there must reach the next answer.
  const routesOf = async (query: Record<string, string> = { since: '3h' }) =>
    (await stats(query)).data.map((g) => [g.route, g.count, g.status5xx, g.max]);
  const sent = (path: string, startedAt: string, elapsedTime: number, status = 200) => ({
    pathnameUrl: path,
    startedAt,
    elapsedTime,
    status,
  });

  it('counts an entry that arrives late into minutes already answered', async () => {
    await start();
    await batch([
      sent('/users/1', '2026-05-05T09:30:10.000Z', 10),
      sent('/users/2', '2026-05-05T10:40:10.000Z', 20),
      sent('/users/3', '2026-05-05T11:45:10.000Z', 30),
      sent('/users/4', '2026-05-05T12:00:05.000Z', 40),
    ]);
    const closed = { since: '2026-05-05T11:00:00Z', until: '2026-05-05T11:50:00Z' };
    expect(await routesOf()).toEqual([['/users/{id}', 4, 0, 40]]);
    expect(await routesOf(closed)).toEqual([['/users/{id}', 1, 0, 30]]);
    // Into an hour row and a minute row both answered above, by entries made long after them.
    await batch([
      sent('/users/5', '2026-05-05T10:40:50.000Z', 900, 503),
      sent('/users/6', '2026-05-05T11:45:20.000Z', 5, 503),
      // Not late (under LATE_MS old): in the minutes every answer reads from the database.
      sent('/users/8', '2026-05-05T11:59:00.000Z', 2),
    ]);
    expect(await routesOf()).toEqual([['/users/{id}', 7, 2, 900]]);
    expect(await routesOf(closed)).toEqual([['/users/{id}', 2, 1, 30]]);
    // Time passes: what was the open part is closed now, and read as it is.
    clock.set('2026-05-05T12:30:30.000Z');
    await batch([sent('/users/7', '2026-05-05T12:30:00.000Z', 1)]);
    expect(await routesOf()).toEqual([['/users/{id}', 8, 2, 900]]);
  });

  it('compares with a window a whole number of minutes back, each entry counted once', async () => {
    await start();
    await batch([
      sent('/users/1', '2026-05-05T09:57:30.000Z', 10),
      sent('/users/2', '2026-05-05T09:58:30.000Z', 20),
      sent('/users/3', '2026-05-05T10:00:10.000Z', 30),
      sent('/users/4', '2026-05-05T11:58:10.000Z', 40),
    ]);
    // 90 seconds back is 2 minutes back: [09:58, 11:58), read from minutes and an hour row.
    const answer = await stats({ since: '2026-05-05T10:00:00Z', until: '2026-05-05T12:00:00Z', compare: '90s' });
    expect(answer.meta.previous).toEqual({ since: '2026-05-05T09:58:00.000Z', until: '2026-05-05T11:58:00.000Z' });
    expect(answer.data.map((g) => [g.count, g.previous?.count, g.previous?.max])).toEqual([[2, 2, 30]]);
  });

  it('follows a rule that moves entries of minutes already answered', async () => {
    await start({ routeReassignment: { start: false } });
    await batch([
      sent('/products/blue-shirt', '2026-05-05T10:10:00.000Z', 10),
      sent('/products/red-hat', '2026-05-05T11:20:00.000Z', 20),
    ]);
    expect((await routesOf()).sort()).toEqual([
      ['/products/blue-shirt', 1, 0, 10],
      ['/products/red-hat', 1, 0, 20],
    ]);
    const rule = await rawJson(h, 'POST', `/routes/${sourceId}/rules`, token, { template: '/products/{slug}' });
    expect(rule.status, rule.text).toBe(201);
    await h.routeReassignment.runNow();
    expect(await routesOf()).toEqual([['/products/{slug}', 2, 0, 20]]);
  });
});
