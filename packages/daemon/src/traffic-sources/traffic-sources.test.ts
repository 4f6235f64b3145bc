import { contract } from '@tapline/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  buildWorld,
  createSource,
  expectError,
  manualClock,
  MISSING_ID,
  raw,
  rawJson,
  type Harness,
  startHarness,
} from '@tapline/testkit/daemon';

describe('traffic sources', () => {
  let h: Harness;
  const clock = manualClock('2026-04-01T08:00:00.000Z');
  beforeEach(async () => {
    clock.set('2026-04-01T08:00:00.000Z');
    h = await startHarness({ clock });
  });
  afterEach(() => h.close());

  it('POST creates a source (201) with the spec fields, domain lower-cased, name trimmed', async () => {
    const user = await h.user();
    const answer = await rawJson(h, 'POST', '/traffic-source', user.token, {
      name: '  Shop  ',
      trafficDomain: 'Shop.Example.COM:8443',
    });
    expect(answer.status).toBe(201);
    expect(answer.json).toEqual({
      // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- vitest's asymmetric matchers are typed `any`
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      name: 'Shop',
      trafficDomain: 'shop.example.com:8443',
      userId: user.id,
      createdAt: '2026-04-01T08:00:00.000Z',
      updatedAt: '2026-04-01T08:00:00.000Z',
    });
  });

  it('POST validates name and trafficDomain', async () => {
    const user = await h.user();
    const bad = [
      {},
      { name: 'a' },
      { trafficDomain: 'a.example.com' },
      { name: '', trafficDomain: 'a.example.com' },
      { name: '   ', trafficDomain: 'a.example.com' },
      { name: 'x'.repeat(101), trafficDomain: 'a.example.com' },
      { name: 5, trafficDomain: 'a.example.com' },
      { name: 'a', trafficDomain: 'https://a.example.com' },
      { name: 'a', trafficDomain: 'a.example.com/path' },
      { name: 'a', trafficDomain: '' },
      { name: 'a', trafficDomain: 'a b.com' },
    ];
    for (const body of bad) {
      const answer = await rawJson(h, 'POST', '/traffic-source', user.token, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect((answer.json as { issues: unknown[] }).issues.length).toBeGreaterThan(0);
    }
    expect(
      (await rawJson(h, 'POST', '/traffic-source', user.token, { name: 'x'.repeat(100), trafficDomain: 'localhost' }))
        .status,
    ).toBe(201);
  });

  it('answers 409 to a second source of the same name for the same user, not for another user', async () => {
    const user = await h.user();
    const other = await h.user();
    await createSource(user.client, 'shop');
    await expectError(createSource(user.client, 'shop', 'other.example.com'), 409);
    await expectError(createSource(user.client, ' shop ', 'other.example.com'), 409);
    expect((await createSource(other.client, 'shop')).name).toBe('shop');
  });

  it('GET lists only the user’s sources, newest first, paginated', async () => {
    const user = await h.user();
    const other = await h.user();
    const created = [];
    for (let i = 0; i < 3; i++) {
      created.push(await createSource(user.client, `s${i}`));
      clock.advance(1000);
    }
    await createSource(other.client, 'theirs');
    const list = await user.client.call(contract.listTrafficSources);
    expect(list.data.map((s) => s.name)).toEqual(['s2', 's1', 's0']);
    expect(list.meta).toEqual({ total: 3, page: 1, limit: 10 });
    expect(list.data[0]).toEqual(created[2]);
    const page2 = await user.client.call(contract.listTrafficSources, { query: { page: 2, limit: 2 } });
    expect(page2.data.map((s) => s.name)).toEqual(['s0']);
    expect(page2.meta).toEqual({ total: 3, page: 2, limit: 2 });
  });

  it('GET answers the empty list as {data: [], meta: {total: 0, page: 1, limit: 10}}', async () => {
    const user = await h.user();
    const answer = await raw(h, 'GET', '/traffic-source', { token: user.token });
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ data: [], meta: { total: 0, page: 1, limit: 10 } });
  });

  it('PATCH renames, changes the domain, bumps updatedAt and keeps createdAt', async () => {
    const user = await h.user();
    const source = await createSource(user.client, 'old');
    clock.advance(5000);
    const renamed = await user.client.call(contract.updateTrafficSource, {
      params: { trafficSourceId: source.id },
      body: { name: 'new' },
    });
    expect(renamed).toEqual({ ...source, name: 'new', updatedAt: '2026-04-01T08:00:05.000Z' });
    const moved = await user.client.call(contract.updateTrafficSource, {
      params: { trafficSourceId: source.id },
      body: { trafficDomain: 'API.example.com' },
    });
    expect(moved.trafficDomain).toBe('api.example.com');
    expect(moved.name).toBe('new');
    const listed = await user.client.call(contract.listTrafficSources);
    expect(listed.data).toEqual([moved]);
  });

  it('PATCH answers 400 for an empty or invalid body, 409 for a taken name, and allows keeping its own name', async () => {
    const user = await h.user();
    const a = await createSource(user.client, 'a');
    await createSource(user.client, 'b');
    await expectError(
      user.client.call(contract.updateTrafficSource, { params: { trafficSourceId: a.id }, body: {} }),
      400,
    );
    await expectError(
      user.client.call(contract.updateTrafficSource, { params: { trafficSourceId: a.id }, body: { name: '' } }),
      400,
    );
    await expectError(
      user.client.call(contract.updateTrafficSource, {
        params: { trafficSourceId: a.id },
        body: { trafficDomain: 'http://x' },
      }),
      400,
    );
    await expectError(
      user.client.call(contract.updateTrafficSource, { params: { trafficSourceId: a.id }, body: { name: 'b' } }),
      409,
    );
    expect(
      (await user.client.call(contract.updateTrafficSource, { params: { trafficSourceId: a.id }, body: { name: 'a' } }))
        .name,
    ).toBe('a');
    await expectError(
      user.client.call(contract.updateTrafficSource, { params: { trafficSourceId: 'nope' }, body: { name: 'c' } }),
      400,
      'trafficSourceId must be a valid UUID',
    );
    await expectError(
      user.client.call(contract.updateTrafficSource, { params: { trafficSourceId: MISSING_ID }, body: { name: 'c' } }),
      404,
      'Traffic Source not found',
    );
  });

  it('DELETE answers 204 with an empty body, then 404; bad ids are 400', async () => {
    const user = await h.user();
    const source = await createSource(user.client);
    const deleted = await raw(h, 'DELETE', `/traffic-source/${source.id}`, { token: user.token });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await user.client.call(contract.listTrafficSources)).data).toEqual([]);
    await expectError(
      user.client.call(contract.deleteTrafficSource, { params: { trafficSourceId: source.id } }),
      404,
      'Traffic Source not found',
    );
    await expectError(
      user.client.call(contract.deleteTrafficSource, { params: { trafficSourceId: 'x' } }),
      400,
      'trafficSourceId must be a valid UUID',
    );
  });

  it('DELETE removes all of the source’s data and nothing of other sources', async () => {
    const user = await h.user();
    const doomed = await buildWorld(user.client);
    const kept = await buildWorld(user.client);
    const { token: restricted } = await h.deps.tokens.issue({
      userId: user.id,
      scope: 'full',
      sourceId: doomed.sourceId,
    });
    await user.client.call(contract.deleteTrafficSource, { params: { trafficSourceId: doomed.sourceId } });

    const { db } = h.deps;
    const tables = ['http_traffic', 'domains', 'pathnames', 'core_logs', 'webhooks'] as const;
    for (const table of tables) {
      const left = await db
        .selectFrom(table)
        .select('traffic_source_id')
        .where('traffic_source_id', '=', doomed.sourceId)
        .execute();
      expect(left, table).toEqual([]);
      const other = await db
        .selectFrom(table)
        .select('traffic_source_id')
        .where('traffic_source_id', '=', kept.sourceId)
        .execute();
      expect(other.length, table).toBeGreaterThan(0);
    }
    // A token restricted to the deleted source verifies no more.
    expect((await raw(h, 'GET', '/auth/me', { token: restricted })).status).toBe(401);
    // The same name can be used again.
    expect((await createSource(user.client, 'world-again')).name).toBe('world-again');
    await expectError(
      user.client.call(contract.listTraffic, { params: { trafficSourceId: doomed.sourceId } }),
      404,
      'Traffic Source not found',
    );
    await expectError(
      user.client.call(contract.deleteWebhook, { params: { webhookId: doomed.webhookId } }),
      404,
      'Webhook not found',
    );
  });
});
