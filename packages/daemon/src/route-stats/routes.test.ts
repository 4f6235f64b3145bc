import { contract, type HttpTrafficRecord, type TaplineClient } from '@tapline/shared';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { composeBody, createSource, type Harness, rawJson, startHarness } from '@tapline/testkit/daemon';

/** Issue 26: every entry gets a route template, shown on the wire and filterable. */
describe('route templates on entries', () => {
  let h: Harness;
  let client: TaplineClient;
  let token: string;
  let sourceId: string;
  beforeEach(async () => {
    h = await startHarness({ routeBackfill: { start: false } });
    const user = await h.user();
    client = user.client;
    token = user.token;
    sourceId = (await createSource(client)).id;
  });
  afterEach(() => h.close());

  const compose = (overrides: Record<string, unknown>) =>
    rawJson(h, 'POST', `/http-traffic-record/${sourceId}`, token, composeBody(sourceId, overrides));
  const list = (query: Record<string, string>) =>
    client.call(contract.listTraffic, { params: { trafficSourceId: sourceId }, query });

  it('infers a template, takes a sent one normalised, and shows it in the answer, the list and the record', async () => {
    const inferred = await compose({ pathnameUrl: '/users/42' });
    expect(inferred.status, inferred.text).toBe(201);
    expect((inferred.json as HttpTrafficRecord).route).toBe('/users/{id}');
    await compose({ pathnameUrl: '/users/43' });
    const sent = await compose({ pathnameUrl: '/users/44/orders/7', route: '/users/:userId/orders/:orderId' });
    expect((sent.json as HttpTrafficRecord).route).toBe('/users/{userId}/orders/{orderId}');
    await compose({ pathnameUrl: '/products/blue-shirt' });

    const all = await list({});
    expect(all.data.map((e) => [e.pathname, e.route])).toEqual([
      ['/products/blue-shirt', '/products/blue-shirt'],
      ['/users/44/orders/7', '/users/{userId}/orders/{orderId}'],
      ['/users/43', '/users/{id}'],
      ['/users/42', '/users/{id}'],
    ]);
    const one = await client.call(contract.getTraffic, {
      params: { trafficSourceId: sourceId, id: all.data[0]?.id ?? '' },
    });
    expect(one.route).toBe('/products/blue-shirt');
  });

  it('filters by route: the list parameter (any spelling) and the filter language', async () => {
    for (const path of ['/users/42', '/users/43', '/users/42/orders/1', '/health'])
      await compose({ pathnameUrl: path });
    const byParam = await list({ route: '/users/{id}' });
    expect(byParam.data.map((e) => e.pathname).sort()).toEqual(['/users/42', '/users/43']);
    expect(byParam.meta.total).toBe(2);
    expect((await list({ route: '/users/:id' })).meta.total).toBe(2);
    expect((await list({ q: 'route=/users/{id}' })).meta.total).toBe(2);
    expect((await list({ q: 'route=/users/:id or route=/health' })).meta.total).toBe(3);
    expect((await list({ q: 'route^=/users/' })).meta.total).toBe(3);
    expect((await list({ q: 'route!=/users/{id}' })).meta.total).toBe(2);
    const bad = await rawJson(h, 'GET', `/http-traffic/${sourceId}?route=users`, token);
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('route');
  });

  it('lists templates per source once, with the strongest origin any entry gave them', async () => {
    await compose({ pathnameUrl: '/users/42' });
    await compose({ pathnameUrl: '/users/43', route: '/users/{id}' });
    const rows = await h.deps.db
      .selectFrom('routes')
      .select(['template', 'origin'])
      .where('traffic_source_id', '=', sourceId)
      .execute();
    expect(rows).toEqual([{ template: '/users/{id}', origin: 'sent' }]);
  });

  it('takes the Arkyn SDK’s templated pathname as the sent route, and leaves a literal one to inference', async () => {
    const arkyn = (pathnameUrl: string) => ({
      ...composeBody(sourceId, { pathnameUrl }),
      requestHeaders: '{}',
      queryParams: '{}',
      responseHeaders: '{}',
      requestBody: 'null',
      responseBody: 'null',
    });
    const templated = await rawJson(h, 'POST', '/ingest-log', token, arkyn('/users/:id'));
    expect(templated.status, templated.text).toBe(201);
    expect((templated.json as HttpTrafficRecord).route).toBe('/users/{id}');
    const literal = await rawJson(h, 'POST', '/ingest-log', token, arkyn('/users/42'));
    expect((literal.json as HttpTrafficRecord).route).toBe('/users/{id}');
    const origins = await h.deps.db
      .selectFrom('routes')
      .select('origin')
      .where('traffic_source_id', '=', sourceId)
      .execute();
    expect(origins).toEqual([{ origin: 'sent' }]);
  });

  it('gives entries stored before routes existed their route in the background, resumably, once each', async () => {
    for (const path of ['/users/1', '/users/2', '/orders/5', '/users/3']) await compose({ pathnameUrl: path });
    // As an upgraded database holds them: no route, no routes rows.
    await sql`update http_traffic set route_id = null`.execute(h.deps.db);
    await h.deps.db.deleteFrom('routes').execute();
    expect((await list({})).data.map((e) => e.route)).toEqual([
      '/users/{id}',
      '/orders/{id}',
      '/users/{id}',
      '/users/{id}',
    ]);
    expect((await list({ route: '/users/{id}' })).meta.total).toBe(0);

    expect(await h.routeBackfill.runNow()).toBe(4);
    expect(await h.routeBackfill.runNow()).toBe(0);
    expect((await list({ route: '/users/{id}' })).meta.total).toBe(3);
    expect((await list({ route: '/orders/{id}' })).meta.total).toBe(1);
  });
});
