import { contract, type TaplineClient } from '@tapline/shared';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  composeBody,
  createSource,
  expectError,
  type Harness,
  manualClock,
  rawJson,
  startHarness,
} from '@tapline/testkit/daemon';
import { bodyOf, expectExact, MINUTES, type Sent, sentEntries } from './exactness.fixture.js';

/** Issue 26, "Rules of the source": stored per source, applied at ingest and to entries already stored. */
describe('route rules (issue 26)', () => {
  // After the fixture's three days, so every entry it makes is in the past.
  const clock = manualClock('2026-05-07T12:00:00.000Z');
  let h: Harness;
  let client: TaplineClient;
  let token: string;
  let sourceId: string;
  beforeEach(async () => {
    h = await startHarness({
      clock,
      pruner: { start: false },
      routeBackfill: { start: false },
      routeReassignment: { start: false },
    });
    const user = await h.user();
    client = user.client;
    token = user.token;
    sourceId = (await createSource(client)).id;
  });
  afterEach(() => h.close());

  const add = (template: string) => rawJson(h, 'POST', `/routes/${sourceId}/rules`, token, { template });
  const rules = () => client.call(contract.listRouteRules, { params: { trafficSourceId: sourceId }, query: {} });
  const routes = async () =>
    (await client.call(contract.listRoutes, { params: { trafficSourceId: sourceId }, query: {} })).data
      .map((r) => [r.template, r.origin, r.entries])
      .sort();
  const batch = (paths: string[]) =>
    rawJson(
      h,
      'POST',
      `/http-traffic-record/${sourceId}/batch`,
      token,
      paths.map((pathnameUrl) => composeBody(sourceId, { pathnameUrl })),
    );

  it('files a compose by a rule added since the one before, which its own transaction reads', async () => {
    const compose = (pathnameUrl: string) =>
      rawJson(h, 'POST', `/http-traffic-record/${sourceId}`, token, composeBody(sourceId, { pathnameUrl }));
    expect((await compose('/products/blue-shirt')).json).toMatchObject({ route: '/products/blue-shirt' });
    // On PostgreSQL the next group is filed by the rules the last one read until its own read is
    // back (decisions §20.37): that read finds the rule, and the group runs again by it.
    expect((await add('/products/:slug')).status).toBe(201);
    expect((await compose('/products/red-shirt')).json).toMatchObject({ route: '/products/{slug}' });
    expect((await compose('/products/green-shirt')).json).toMatchObject({ route: '/products/{slug}' });
  });

  it('stores a rule in OpenAPI spelling, files new entries under it, and lists it with origin rule', async () => {
    const created = await add('/products/:slug');
    expect(created.status, created.text).toBe(201);
    expect(created.json).toMatchObject({ template: '/products/{slug}', entries: 0 });
    expect(await routes()).toEqual([['/products/{slug}', 'rule', 0]]);
    const stored = await rawJson(
      h,
      'POST',
      `/http-traffic-record/${sourceId}`,
      token,
      composeBody(sourceId, { pathnameUrl: '/products/blue-shirt' }),
    );
    expect(stored.json).toMatchObject({ route: '/products/{slug}' });
    expect((await rules()).data.map((r) => [r.template, r.entries])).toEqual([['/products/{slug}', 1]]);
    // A more literal path keeps its own template only if a rule says so; a sent route wins over rules.
    const sent = await rawJson(
      h,
      'POST',
      `/http-traffic-record/${sourceId}`,
      token,
      composeBody(sourceId, { pathnameUrl: '/products/new', route: '/products/new' }),
    );
    expect(sent.json).toMatchObject({ route: '/products/new' });
  });

  it('refuses a malformed rule with a 400 naming template, and one matching the same paths with a 409 naming the rule', async () => {
    for (const [template, words] of [
      ['products/{slug}', 'begins with /'],
      ['/products/{slug', 'unbalanced'],
      ['/a/{id}/b/{id}', 'twice'],
    ] as const) {
      const answer = await add(template);
      expect(answer.status, template).toBe(400);
      expect(answer.text, template).toContain('template');
      expect(answer.text, template).toContain(words);
    }
    const first = await add('/products/{slug}');
    expect(first.status).toBe(201);
    for (const template of ['/products/{id}', '/products/:slug']) {
      const answer = await add(template);
      expect(answer.status, template).toBe(409);
      expect(answer.json).toMatchObject({ code: 'rule_conflict' });
      expect(answer.text).toContain('/products/{slug}');
    }
    // More literal than an existing rule is no conflict: the most literal rule wins.
    expect((await add('/products/{slug}/reviews')).status).toBe(201);
    expect((await add('/products/featured')).status).toBe(201);
    expect((await rules()).meta.total).toBe(3);
  });

  it('answers 400 without a token, 401, 403 for another user and a read token writing, 404 for an unknown source or rule', async () => {
    const rule = (await add('/a/{x}')).json as { id: string };
    expect((await rawJson(h, 'POST', `/routes/${sourceId}/rules`, undefined, { template: '/b/{x}' })).status).toBe(400);
    expect((await rawJson(h, 'GET', `/routes/${sourceId}/rules`, 'nope')).status).toBe(401);
    const other = await h.user();
    await expectError(
      other.client.call(contract.listRouteRules, { params: { trafficSourceId: sourceId }, query: {} }),
      403,
    );
    await expectError(
      other.client.call(contract.deleteRouteRule, { params: { trafficSourceId: sourceId, ruleId: rule.id } }),
      403,
    );
    const me = await h.deps.db
      .selectFrom('traffic_sources')
      .select('user_id')
      .where('id', '=', sourceId)
      .executeTakeFirstOrThrow();
    const reader = await h.token(me.user_id, { scope: 'read' });
    expect(
      (await reader.call(contract.listRouteRules, { params: { trafficSourceId: sourceId }, query: {} })).meta.total,
    ).toBe(1);
    await expectError(
      reader.call(contract.createRouteRule, { params: { trafficSourceId: sourceId }, body: { template: '/c/{x}' } }),
      403,
    );
    await expectError(
      client.call(contract.listRouteRules, {
        params: { trafficSourceId: '01a1fc8d-93a2-767e-92f3-e5a71388f88b' },
        query: {},
      }),
      404,
    );
    await expectError(
      client.call(contract.deleteRouteRule, {
        params: { trafficSourceId: sourceId, ruleId: '01a1fc8d-93a2-767e-92f3-e5a71388f88b' },
      }),
      404,
    );
    await client.call(contract.deleteRouteRule, { params: { trafficSourceId: sourceId, ruleId: rule.id } });
    expect((await rules()).meta.total).toBe(0);
  });

  it('moves stored entries to a rule added later, and back to inference when it is removed, resumably', async () => {
    const paths = [
      '/products/blue-shirt',
      '/products/red-hat',
      '/products/green-sock',
      '/users/1',
      '/products/blue-shirt',
    ];
    expect((await batch(paths)).status).toBe(201);
    expect(await routes()).toEqual([
      ['/products/blue-shirt', 'inferred', 2],
      ['/products/green-sock', 'inferred', 1],
      ['/products/red-hat', 'inferred', 1],
      ['/users/{id}', 'inferred', 1],
    ]);
    const rule = (await add('/products/{slug}')).json as { id: string };
    // Stopped after one batch of two: the job's mark keeps its place.
    const { reassignBatch } = await import('./reassign.js');
    expect(await reassignBatch({ ...h.deps, stats: true }, 2)).toBe(2);
    await h.routeReassignment.runNow();
    expect(await routes()).toEqual([
      ['/products/blue-shirt', 'inferred', 0],
      ['/products/green-sock', 'inferred', 0],
      ['/products/red-hat', 'inferred', 0],
      ['/products/{slug}', 'rule', 4],
      ['/users/{id}', 'inferred', 1],
    ]);
    const list = await client.call(contract.listTraffic, {
      params: { trafficSourceId: sourceId },
      query: { route: '/products/{slug}' },
    });
    expect(list.meta.total).toBe(4);

    await client.call(contract.deleteRouteRule, { params: { trafficSourceId: sourceId, ruleId: rule.id } });
    await h.routeReassignment.runNow();
    expect(await routes()).toEqual([
      ['/products/blue-shirt', 'inferred', 2],
      ['/products/green-sock', 'inferred', 1],
      ['/products/red-hat', 'inferred', 1],
      ['/products/{slug}', 'inferred', 0],
      ['/users/{id}', 'inferred', 1],
    ]);
    expect(await h.deps.db.selectFrom('route_reassignments').selectAll().execute()).toEqual([]);
  });

  it('keeps the numbers exact when a rule added after the fact moves stored entries (property)', async () => {
    await fc.assert(
      fc.asyncProperty(sentEntries, async (sent) => {
        const source = (await createSource(client)).id;
        for (let i = 0; i < sent.length; i += 60) {
          const answer = await rawJson(
            h,
            'POST',
            `/http-traffic-record/${source}/batch`,
            token,
            sent.slice(i, i + 60).map((s) => bodyOf(source, s)),
          );
          if (answer.status !== 201) throw new Error(answer.text);
        }
        // Read once before the move, so that the daemon remembers these windows (closed-blocks.ts)
        // and must notice that the move changed them.
        await expectExact(client, source, sent, { from: 0, to: MINUTES });
        // All of /orders/{id}/items moves to one rule; part of /users/{id} (ids of two digits or
        // more beginning with 1) to another, so minute rows are emptied and partly subtracted.
        for (const template of ['/orders/{order}/{part}', '/users/1{rest}']) {
          const answer = await rawJson(h, 'POST', `/routes/${source}/rules`, token, { template });
          if (answer.status !== 201) throw new Error(answer.text);
        }
        await h.routeReassignment.runNow();
        const ruled = (s: Sent) =>
          s.template === '/orders/{id}/items'
            ? '/orders/{order}/{part}'
            : /^\/users\/1\d+$/.test(s.path)
              ? '/users/1{rest}'
              : s.template;
        const moved: Sent[] = sent.map((s) => ({ ...s, template: ruled(s) }));
        // Minutes; two whole hours (22:00 and 23:00 of the first day); a whole UTC day; the three
        // days, read from day, hour and minute rows together (window.ts segmentsOf).
        const windows = [
          { from: 0, to: 3 },
          { from: 2, to: 60 },
          { from: 0, to: 120 },
          { from: 120, to: 120 + 1440 },
          { from: 0, to: MINUTES },
        ];
        for (const window of windows) await expectExact(client, source, moved, window);
        // The emptied route keeps no row of any span.
        const left = (table: 'route_stats' | 'route_rollups') =>
          h.deps.db
            .selectFrom('routes as r')
            .select('r.template')
            .where('r.traffic_source_id', '=', source)
            .where('r.template', '=', '/orders/{id}/items')
            .where((eb) => eb.exists(eb.selectFrom(table).select('route_id').whereRef('route_id', '=', 'r.id')))
            .execute();
        expect(await left('route_stats')).toEqual([]);
        expect(await left('route_rollups')).toEqual([]);
      }),
      { numRuns: 6 },
    );
  });

  it('suggests sibling constants under one parent with their evidence, and nothing a rule covers', async () => {
    const slugs = ['blue-shirt', 'red-hat', 'green-sock', 'black-boot', 'white-tee', 'grey-cap'];
    await batch([
      ...slugs.map((s) => `/products/${s}`),
      '/products/blue-shirt',
      '/products/blue-shirt',
      '/api/users',
      '/api/orders',
      '/api/health',
      '/api/carts',
      '/api/items',
      '/api/tags',
    ]);
    const answer = await client.call(contract.suggestRoutes, { params: { trafficSourceId: sourceId } });
    expect(answer.data).toEqual([
      {
        template: '/products/{slug}',
        parent: '/products/',
        values: 6,
        minSeen: 1,
        maxSeen: 3,
        entries: 8,
        examples: ['blue-shirt', 'black-boot', 'green-sock'],
      },
    ]);
    await add('/products/{slug}');
    expect((await client.call(contract.suggestRoutes, { params: { trafficSourceId: sourceId } })).data).toEqual([]);
  });
});
