import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  ApiError,
  contract,
  createClient,
  type ComposeRecordInput,
  type HttpTrafficRecord,
  type TaplineClient,
  type TrafficSource,
} from '@tapline/shared';
import { composeBody } from '@tapline/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, startDaemon, tempHome, type SpawnedDaemon } from './support/binaries.js';

/**
 * The built taplined, walked endpoint by endpoint over real HTTP: the local user owns the data,
 * Ana (a second user made with the admin subcommands) may see none of it, and a restart on the
 * same home keeps every row and every token. The steps share state and run in order.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PASSWORD = 'correct horse battery';

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected the daemon to answer with an error status');
}

/** The status and, when given, the exact `error` message of the `{statusCode, error}` body. */
async function expectError(promise: Promise<unknown>, status: number, message?: string): Promise<ApiError> {
  const error = await failure(promise);
  expect({ status: error.status, statusCode: error.body.statusCode }).toEqual({ status, statusCode: status });
  if (message !== undefined) expect(error.body.error).toBe(message);
  return error;
}

const jti = (token: string): string =>
  (JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as { jti: string }).jti;

const record = (trafficSourceId: string, over: Partial<ComposeRecordInput> = {}): ComposeRecordInput =>
  composeBody(trafficSourceId, over);

describe('taplined, spawned from its build', () => {
  const home = tempHome();
  let daemon: SpawnedDaemon;
  let local: TaplineClient;
  let anon: TaplineClient;
  let ana: TaplineClient;
  const tokens = { local: '', ana: '', read: '', ingest: '' };
  let shop: TrafficSource;
  let other: TrafficSource;
  const records: HttpTrafficRecord[] = [];
  const client = (token?: string) => createClient({ baseUrl: daemon.url, ...(token ? { token } : {}) });

  beforeAll(async () => {
    daemon = await startDaemon(home.path);
    tokens.local = daemon.token;
    local = client(tokens.local);
    anon = client();
  });

  afterAll(async () => {
    if (daemon?.process.exitCode === null) await daemon.kill();
    home.remove();
  });

  it('listens on a free loopback port and writes the local user token with mode 0600', async () => {
    expect(daemon.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(new URL(daemon.url).port).not.toBe('0');
    expect(statSync(join(home.path, 'token')).mode & 0o777).toBe(0o600);
    const me = await local.call(contract.me);
    expect(me).toMatchObject({ email: 'local@localhost', scope: 'full', sourceId: null, tokenId: jti(tokens.local) });
  });

  it('serves /healthz and /openapi.json without a token', async () => {
    /* eslint-disable @typescript-eslint/no-unsafe-assignment -- vitest's asymmetric matchers are typed `any` */
    expect(await anon.call(contract.health)).toEqual({
      status: 'ok',
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      database: 'sqlite',
      storage: expect.objectContaining({ retentionMs: 30 * 86_400_000 }),
    });
    /* eslint-enable @typescript-eslint/no-unsafe-assignment */
    // An open endpoint ignores even a broken token.
    expect((await client('not-a-token').raw('/healthz')).status).toBe(200);
    const doc = (await anon.call(contract.openapi)) as {
      openapi: string;
      paths: Record<string, Record<string, unknown>>;
    };
    expect(doc.openapi).toBe('3.1.0');
    // Paths compared by shape: OpenAPI makes /webhooks/:trafficSourceId and /webhooks/:webhookId one `{id}` template.
    const shape = (path: string) => path.replace(/:\w+|\{\w+\}/g, ':');
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${shape(path)}`),
    );
    const served = Object.values(contract).map((e) => `${e.method} ${shape(e.path)}`);
    expect(documented.sort()).toEqual(served.sort());
  });

  it('answers 400 without a token, 401 for a bad one and 404 for an unknown route', async () => {
    await expectError(anon.call(contract.me), 400, 'Authentication token missing');
    await expectError(anon.call(contract.listTrafficSources), 400, 'Authentication token missing');
    await expectError(client('x.y.z').call(contract.me), 401, 'Invalid token');
    const unknown = await local.raw('/no-such-route');
    expect({ status: unknown.status, body: await unknown.json() }).toEqual({
      status: 404,
      body: { statusCode: 404, error: 'Not Found', code: 'route_not_found' },
    });
  });

  it('adds a user with a password and exchanges it for a 30-day token at POST /auth/token', async () => {
    const id = await admin(
      home.path,
      ['user', 'add', 'Ana@Example.com', '--name', 'Ana', '--password-stdin'],
      `${PASSWORD}\n`,
    );
    expect(id).toMatch(UUID);
    const before = Date.now();
    const issued = await anon.call(contract.createToken, { body: { email: 'ana@example.com', password: PASSWORD } });
    const lifetime = Date.parse(issued.expiresAt ?? '') - before;
    expect(Math.abs(lifetime - 30 * 24 * 3600 * 1000)).toBeLessThan(60_000);
    tokens.ana = issued.token;
    ana = client(tokens.ana);
    expect(await ana.call(contract.me)).toMatchObject({
      id,
      email: 'ana@example.com',
      name: 'Ana',
      scope: 'full',
      sourceId: null,
    });
    await expectError(
      anon.call(contract.createToken, { body: { email: 'ana@example.com', password: 'wrong' } }),
      401,
      'Invalid email or password',
    );
    await expectError(
      anon.call(contract.createToken, { body: { email: 'nobody@example.com', password: PASSWORD } }),
      401,
      'Invalid email or password',
    );
  });

  it('creates, renames, lists and deletes traffic sources', async () => {
    shop = await local.call(contract.createTrafficSource, {
      body: { name: 'shop', trafficDomain: 'Shop.Example.com' },
    });
    // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- vitest's asymmetric matchers are typed `any`
    expect(shop).toMatchObject({ name: 'shop', trafficDomain: 'shop.example.com', id: expect.stringMatching(UUID) });
    await expectError(
      local.call(contract.createTrafficSource, { body: { name: 'shop', trafficDomain: 'x.example.com' } }),
      409,
    );
    await expectError(
      local.call(contract.createTrafficSource, { body: { name: '', trafficDomain: 'https://x' } }),
      400,
    );
    other = await local.call(contract.createTrafficSource, {
      body: { name: 'staging', trafficDomain: 'staging.example.com' },
    });
    other = await local.call(contract.updateTrafficSource, {
      params: { trafficSourceId: other.id },
      body: { name: 'staging-eu' },
    });
    expect(other.name).toBe('staging-eu');
    const doomed = await local.call(contract.createTrafficSource, {
      body: { name: 'doomed', trafficDomain: 'doomed.example.com' },
    });
    expect(await local.call(contract.deleteTrafficSource, { params: { trafficSourceId: doomed.id } })).toBeUndefined();
    await expectError(
      local.call(contract.deleteTrafficSource, { params: { trafficSourceId: doomed.id } }),
      404,
      'Traffic Source not found',
    );
    const list = await local.call(contract.listTrafficSources);
    expect(list.meta).toEqual({ total: 2, page: 1, limit: 10 });
    expect(list.data.map((s) => s.name)).toEqual(['staging-eu', 'shop']);
  });

  it('makes scoped and source-restricted tokens with `token create`', async () => {
    tokens.read = await admin(home.path, ['token', 'create', 'local@localhost', '--scope', 'read']);
    tokens.ingest = await admin(home.path, [
      'token',
      'create',
      'local@localhost',
      '--scope',
      'ingest',
      '--source',
      shop.id,
      '--expires',
      '30d',
    ]);
    expect(await client(tokens.read).call(contract.me)).toMatchObject({ scope: 'read', sourceId: null });
    expect(await client(tokens.ingest).call(contract.me)).toMatchObject({ scope: 'ingest', sourceId: shop.id });
    const listed = await admin(home.path, ['token', 'list', 'local@localhost']);
    expect(listed.split('\n')[0]).toMatch(/^ID\s+EMAIL\s+SCOPE\s+SOURCE\s+CREATED\s+EXPIRES\s+REVOKED\s+NOTE$/);
    const row = (token: string) => listed.split('\n').find((line) => line.startsWith(jti(token))) ?? '';
    expect(row(tokens.read)).toMatch(/local@localhost\s+read\s+-\s+\S+\s+never\s+-\s+-$/);
    expect(row(tokens.ingest)).toContain(`ingest  ${shop.id}`);
    expect(row(tokens.local)).toMatch(/\sfull\s/);
    expect(listed).not.toContain(tokens.read);
  });

  it('composes records: level rule, domain with port, upper-cased method, redaction before storage', async () => {
    const ingest = client(tokens.ingest);
    records.push(
      await local.call(contract.composeRecord, {
        params: { trafficSourceId: shop.id },
        body: record(shop.id, {
          trafficUserId: '0b0b8f6e-3c1e-4c39-9a53-1d3e0f4c2a11',
          requestHeaders: { Authorization: 'Bearer secret', 'x-retry': 3 },
          requestBody: { user: { password: 'hunter2', name: 'a' } },
          queryParams: { page: '2', api_key: 'k' },
        }),
      }),
      await ingest.call(contract.composeRecord, {
        params: { trafficSourceId: shop.id },
        body: record(shop.id, {
          domainUrl: 'https://Shop.Example.com:8443/',
          method: 'post',
          protocol: 'https',
          status: 503,
          elapsedTime: 182,
        }),
      }),
      await ingest.call(contract.composeRecord, {
        params: { trafficSourceId: shop.id },
        body: record(shop.id, {
          pathnameUrl: '/api/cart/1',
          method: 'DELETE',
          status: 404,
          responseHeaders: { 'set-cookie': ['a=1', 'b=2'] },
        }),
      }),
    );
    const [first, fatal, warning] = records;
    expect(first).toMatchObject({
      level: 'INFO',
      method: 'GET',
      domain: 'shop.example.com',
      pathname: '/api/orders',
      trafficUserId: '0b0b8f6e-3c1e-4c39-9a53-1d3e0f4c2a11',
    });
    expect(first?.request).toEqual({
      headers: { Authorization: '[REDACTED]', 'x-retry': '3' },
      body: { user: { password: '[REDACTED]', name: 'a' } },
      queryParams: { page: '2', api_key: '[REDACTED]' },
    });
    expect(fatal).toMatchObject({
      level: 'FATAL',
      method: 'POST',
      protocol: 'HTTPS',
      domain: 'shop.example.com:8443',
      elapsedTime: 182,
    });
    expect(fatal).not.toHaveProperty('trafficUserId');
    expect(warning).toMatchObject({
      level: 'WARNING',
      status: 404,
      response: { headers: { 'set-cookie': ['[REDACTED]', '[REDACTED]'] } },
    });
    expect(first?.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('rejects bad records with 400 issues, unknown sources with 404, and wrong scopes with 403', async () => {
    const params = { trafficSourceId: shop.id };
    const bad = await expectError(
      local.call(contract.composeRecord, {
        params,
        body: record(shop.id, { domainUrl: 'not a url', pathnameUrl: 'x', status: 99, method: 'TRACE' }),
      }),
      400,
    );
    expect(bad.body.issues?.map((i) => i.path).sort()).toEqual(['domainUrl', 'method', 'pathnameUrl', 'status']);
    await expectError(
      local.call(contract.composeRecord, { params, body: record(other.id) }),
      400,
      'trafficSourceId in the body must equal the one in the path',
    );
    const ghost = '01a1fc92-0000-7000-8000-000000000000';
    await expectError(
      local.call(contract.composeRecord, { params: { trafficSourceId: ghost }, body: record(ghost) }),
      404,
      'Traffic Source not found',
    );
    await expectError(
      client(tokens.read).call(contract.composeRecord, { params, body: record(shop.id) }),
      403,
      'Forbidden',
    );
    // An ingest token restricted to shop: no other source, no reading traffic, lists only shop.
    const ingest = client(tokens.ingest);
    await expectError(
      ingest.call(contract.composeRecord, { params: { trafficSourceId: other.id }, body: record(other.id) }),
      403,
      'Forbidden',
    );
    await expectError(ingest.call(contract.listTraffic, { params }), 403, 'Forbidden');
    expect((await ingest.call(contract.listTrafficSources)).data.map((s) => s.id)).toEqual([shop.id]);
    const raw = await local.raw(`/http-traffic-record/${shop.id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"oops',
    });
    expect({ status: raw.status, body: await raw.json() }).toEqual({
      status: 400,
      body: { statusCode: 400, error: 'Malformed JSON in request body', code: 'malformed_json' },
    });
  });

  it('stores a large batch in order through its worker thread, and refuses one bad item by index', async () => {
    // A daemon of its own, logging at info, to see the worker thread start (and nothing fail).
    const bulkHome = tempHome();
    const bulkDaemon = await startDaemon(bulkHome.path, ['--log-level', 'info']);
    try {
      const owner = createClient({ baseUrl: bulkDaemon.url, token: bulkDaemon.token });
      const bulk = await owner.call(contract.createTrafficSource, {
        body: { name: 'bulk', trafficDomain: 'bulk.example.com' },
      });
      const params = { trafficSourceId: bulk.id };
      // About 600 KB: well over the size from which batches leave the event loop.
      const items = Array.from({ length: 1000 }, (_, i) =>
        record(bulk.id, {
          pathnameUrl: `/bulk/${i % 20}`,
          status: i % 10 === 0 ? 503 : 200,
          requestHeaders: { authorization: `Bearer secret-${i}` },
          responseBody: { i, note: 'x'.repeat(200) },
        }),
      );
      const { ids } = await owner.call(contract.composeBatch, { params, body: items });
      expect(ids).toHaveLength(1000);
      const last = await owner.call(contract.getTraffic, { params: { ...params, id: ids[999]! } });
      expect(last).toMatchObject({
        pathname: '/bulk/19',
        status: 200,
        response: { body: { i: 999, note: 'x'.repeat(200) } },
      });
      expect(last.request.headers.authorization).toBe('[REDACTED]');
      expect((await owner.call(contract.listTraffic, { params, query: { level: 'FATAL' } })).meta.total).toBe(100);

      const bad = items.map((item, i) => (i === 937 ? { ...item, method: 'TRACE' } : item));
      const refused = await expectError(owner.call(contract.composeBatch, { params, body: bad }), 400);
      expect(refused.body.issues?.map((issue) => issue.path)).toEqual(['937.method']);
      expect((await owner.call(contract.listTraffic, { params })).meta.total).toBe(1000);
    } finally {
      expect(await bulkDaemon.stop()).toBe(0);
      bulkHome.remove();
    }
    const log = String((await bulkDaemon.process).stderr);
    expect(log).toContain('started the batch worker thread');
    expect(log).not.toMatch(/"level":(50|60)/);
  });

  it('lists traffic newest first with every filter combined by AND, and pages', async () => {
    const [first, fatal, warning] = records as [HttpTrafficRecord, HttpTrafficRecord, HttpTrafficRecord];
    const params = { trafficSourceId: shop.id };
    const ids = async (query: Record<string, string | number> = {}) =>
      (await client(tokens.read).call(contract.listTraffic, { params, query })).data.map((e) => e.id);
    const all = await local.call(contract.listTraffic, { params });
    expect(all.meta).toEqual({ total: 3, page: 1, limit: 10 });
    expect(all.data.map((e) => e.id)).toEqual([warning.id, fatal.id, first.id]);
    expect(all.data[2]).toMatchObject({
      domain: 'shop.example.com',
      pathname: '/api/orders',
      protocol: 'HTTPS',
      trafficUserId: first.trafficUserId,
    });
    expect(all.data[1]).not.toHaveProperty('trafficUserId');
    const entry = all.data[1]!;
    expect(await ids({ level: 'fatal' })).toEqual([fatal.id]);
    expect(await ids({ method: 'get' })).toEqual([first.id]);
    expect(await ids({ status: '4xx' })).toEqual([warning.id]);
    expect(await ids({ status: 503, level: 'FATAL', method: 'POST' })).toEqual([fatal.id]);
    expect(await ids({ status: 503, method: 'GET' })).toEqual([]);
    expect(await ids({ domainId: entry.domainId })).toEqual([fatal.id]);
    expect(await ids({ pathnameId: all.data[0]!.pathnameId })).toEqual([warning.id]);
    // Both bounds are inclusive: a window of exactly one millisecond holds that millisecond's entries.
    const sameMs = await ids({ startDate: first.createdAt, endDate: first.createdAt });
    expect(sameMs).toContain(first.id);
    expect(await ids({ endDate: '2000-01-01' })).toEqual([]);
    const page2 = await local.call(contract.listTraffic, { params, query: { limit: 1, page: 2 } });
    expect(page2).toMatchObject({ data: [{ id: fatal.id }], meta: { total: 3, page: 2, limit: 1 } });
    expect(await local.call(contract.listTraffic, { params, query: { page: 9 } })).toEqual({
      data: [],
      meta: { total: 3, page: 9, limit: 10 },
    });
    await expectError(
      local.call(contract.listTraffic, { params, query: { limit: 0 } }),
      400,
      'limit must be an integer from 1 to 1000',
    );
    await expectError(
      local.call(contract.listTraffic, { params, query: { level: 'DEBUG' } }),
      400,
      'level must be one of INFO, WARNING, FATAL',
    );
    await expectError(
      local.call(contract.listTraffic, { params, query: { startDate: '2026-02-01', endDate: '2026-01-01' } }),
      400,
      'startDate must not be after endDate',
    );
    await expectError(
      local.call(contract.listTraffic, { params: { trafficSourceId: 'nope' } }),
      400,
      'trafficSourceId must be a valid UUID',
    );
  });

  it('reads one whole record, and the domains and pathnames the filters take', async () => {
    const [first, fatal] = records as [HttpTrafficRecord, HttpTrafficRecord];
    const params = { trafficSourceId: shop.id };
    expect(await local.call(contract.getTraffic, { params: { ...params, id: first.id } })).toEqual(first);
    await expectError(
      local.call(contract.getTraffic, { params: { ...params, id: '01a1fc92-0000-7000-8000-000000000000' } }),
      404,
    );
    await expectError(local.call(contract.getTraffic, { params: { trafficSourceId: other.id, id: first.id } }), 404);
    const domains = await local.call(contract.listDomains, { params });
    expect(domains.meta.total).toBe(2);
    expect(domains.data.map((d) => d.value)).toEqual(['shop.example.com:8443', 'shop.example.com']);
    const plain = domains.data[1]!;
    const paths = await local.call(contract.listPathnames, { params, query: { domainId: plain.id } });
    expect(paths.data.map((p) => p.value).sort()).toEqual(['/api/cart/1', '/api/orders']);
    expect(paths.data.every((p) => p.domainId === plain.id)).toBe(true);
    expect((await local.call(contract.listPathnames, { params })).meta.total).toBe(3);
    expect(fatal.domain).toBe(domains.data[0]!.value);
  });

  it('writes and lists core logs', async () => {
    const params = { trafficSourceId: shop.id };
    const full = await client(tokens.ingest).call(contract.createCoreLog, {
      params,
      body: {
        title: 'Order insert failed',
        description: 'duplicate key',
        source: 'api-server',
        layer: 'Database',
        stack: 'Error\n  at x',
        httpTrafficId: records[1]!.id,
      },
    });
    expect(full).toMatchObject({
      statusCode: 201,
      data: { title: 'Order insert failed', layer: 'Database', httpTrafficId: records[1]!.id },
    });
    const bare = await local.call(contract.createCoreLog, { params, body: { title: 'Cache miss storm' } });
    expect(bare.data).toMatchObject({ description: '', source: '', layer: '', stack: '', httpTrafficId: null });
    await expectError(
      local.call(contract.createCoreLog, {
        params,
        body: { title: 'x', httpTrafficId: '01a1fc92-0000-7000-8000-000000000000' },
      }),
      400,
    );
    await expectError(
      local.call(contract.createCoreLog, { params, body: { title: ' ' } }),
      400,
      'title must not be empty',
    );
    const list = await client(tokens.read).call(contract.listCoreLogs, { params });
    expect(list.statusCode).toBe(200);
    expect(list.meta).toEqual({ total: 2, page: 1, limit: 10 });
    expect(list.data.map((l) => l.id)).toEqual([bare.data.id, full.data.id]);
    expect(
      (await local.call(contract.listCoreLogs, { params, query: { limit: 1, page: 2 } })).data.map((l) => l.id),
    ).toEqual([full.data.id]);
    await expectError(
      local.call(contract.listCoreLogs, { params: { trafficSourceId: 'nope' } }),
      400,
      'trafficSourceId must be a valid UUID',
    );
    await expectError(
      local.call(contract.listCoreLogs, { params: { trafficSourceId: '01a1fc92-0000-7000-8000-000000000000' } }),
      404,
      'Traffic Source not found',
    );
  });

  it('creates, lists and deletes webhooks', async () => {
    const params = { trafficSourceId: shop.id };
    const discord = {
      type: 'discord',
      level: 'fatal',
      value: 'https://discord.com/api/webhooks/123456/abcDEF',
    } as const;
    const created = await local.call(contract.createWebhook, { params, body: discord });
    expect(created).toMatchObject({ ...discord, trafficSourceId: shop.id });
    expect(created).not.toHaveProperty('secret');
    const http = await local.call(contract.createWebhook, {
      params,
      body: { type: 'http', level: 'warning', value: 'https://hooks.example.com/tapline' },
    });
    expect(http.secret).toMatch(/^[0-9a-f]{64}$/);
    await expectError(local.call(contract.createWebhook, { params, body: discord }), 409);
    await expectError(
      local.call(contract.createWebhook, {
        params,
        body: { type: 'http', level: 'info', value: 'http://127.0.0.1:9/hook' },
      }),
      400,
    );
    await expectError(
      local.call(contract.createWebhook, {
        params,
        body: { type: 'slack', level: 'info', value: 'https://example.com/services/x' },
      }),
      400,
    );
    await expectError(
      client(tokens.read).call(contract.createWebhook, { params, body: { ...discord, level: 'info' } }),
      403,
      'Forbidden',
    );
    const list = await local.call(contract.listWebhooks, { params });
    expect(list.meta.total).toBe(2);
    expect(list.data.map((w) => w.id)).toEqual([http.id, created.id]);
    expect(list.data[0]).not.toHaveProperty('secret');
    expect(await local.call(contract.deleteWebhook, { params: { webhookId: created.id } })).toBeUndefined();
    await expectError(
      local.call(contract.deleteWebhook, { params: { webhookId: created.id } }),
      404,
      'Webhook not found',
    );
    await expectError(
      local.call(contract.deleteWebhook, { params: { webhookId: '42' } }),
      400,
      'webhookId must be a valid UUID',
    );
    expect((await local.call(contract.listWebhooks, { params })).data.map((w) => w.id)).toEqual([http.id]);
  });

  it('gives a second user 403 on every endpoint of another user’s source, and empty lists', async () => {
    expect(await ana.call(contract.listTrafficSources)).toEqual({ data: [], meta: { total: 0, page: 1, limit: 10 } });
    const params = { trafficSourceId: shop.id };
    const [webhook] = (await local.call(contract.listWebhooks, { params })).data;
    // Thunks, so that each call starts (and may reject) only once it is awaited.
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['listTraffic', () => ana.call(contract.listTraffic, { params })],
      ['getTraffic', () => ana.call(contract.getTraffic, { params: { ...params, id: records[0]!.id } })],
      ['composeRecord', () => ana.call(contract.composeRecord, { params, body: record(shop.id) })],
      ['listDomains', () => ana.call(contract.listDomains, { params })],
      ['listPathnames', () => ana.call(contract.listPathnames, { params })],
      ['listCoreLogs', () => ana.call(contract.listCoreLogs, { params })],
      ['createCoreLog', () => ana.call(contract.createCoreLog, { params, body: { title: 'x' } })],
      ['listWebhooks', () => ana.call(contract.listWebhooks, { params })],
      [
        'createWebhook',
        () =>
          ana.call(contract.createWebhook, {
            params,
            body: { type: 'discord', level: 'info', value: 'https://discord.com/api/webhooks/1/a' },
          }),
      ],
      ['deleteWebhook', () => ana.call(contract.deleteWebhook, { params: { webhookId: webhook!.id } })],
      ['updateTrafficSource', () => ana.call(contract.updateTrafficSource, { params, body: { name: 'mine' } })],
      ['deleteTrafficSource', () => ana.call(contract.deleteTrafficSource, { params })],
    ];
    for (const [name, call] of calls) {
      const error = await failure(call());
      expect({ name, status: error.status, error: error.body.error }).toEqual({
        name,
        status: 403,
        error: 'Forbidden',
      });
    }
    // Nothing Ana tried changed anything.
    expect((await local.call(contract.listTraffic, { params })).meta.total).toBe(3);
    expect((await local.call(contract.listWebhooks, { params })).meta.total).toBe(1);
  });

  it('revokes a token by id: it gets 401 at once', async () => {
    const reader = client(tokens.read);
    await reader.call(contract.me);
    const revoked = await admin(home.path, ['token', 'revoke', jti(tokens.read)]);
    expect(revoked).toBe('');
    await expectError(reader.call(contract.me), 401, 'Invalid token');
    expect(await admin(home.path, ['token', 'list'])).toMatch(
      new RegExp(`^${jti(tokens.read)}.*\\d{4}-\\d\\d-\\d\\dT\\S+Z\\s+-$`, 'm'),
    );
  });

  it('turns an expired token away with 401 token_expired, saying when it expired', async () => {
    const shortLived = client(await admin(home.path, ['token', 'create', 'ana@example.com', '--expires', '1s']));
    // Poll rather than sleep: the token works until its second is over, then never again.
    const deadline = Date.now() + 10_000;
    let error: ApiError | undefined;
    while (!error && Date.now() < deadline) {
      error = await shortLived.call(contract.me).then(
        () => undefined,
        (e: unknown) => {
          if (e instanceof ApiError) return e;
          throw e;
        },
      );
      if (!error) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(error?.status).toBe(401);
    expect(error?.body.code).toBe('token_expired');
    expect(error?.body.error).toMatch(/^Token expired at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/);
  });

  it('stops with exit code 0 on SIGTERM, logs no error on the way, and keeps everything across a restart', async () => {
    const params = { trafficSourceId: shop.id };
    const snapshot = async () => ({
      sources: await local.call(contract.listTrafficSources),
      traffic: await local.call(contract.listTraffic, { params }),
      record: await local.call(contract.getTraffic, { params: { ...params, id: records[0]!.id } }),
      logs: await local.call(contract.listCoreLogs, { params }),
      webhooks: await local.call(contract.listWebhooks, { params }),
      domains: await local.call(contract.listDomains, { params }),
      pathnames: await local.call(contract.listPathnames, { params }),
    });
    const before = await snapshot();
    expect(await daemon.stop()).toBe(0);
    const { stderr } = await daemon.process;
    // pino levels 50 and 60 are error and fatal: every answer above was deliberate, none a 500.
    expect(String(stderr)).not.toMatch(/"level":(50|60)/);

    daemon = await startDaemon(home.path);
    expect(daemon.token).toBe(tokens.local);
    expect(readFileSync(join(home.path, 'token'), 'utf8').trim()).toBe(tokens.local);
    local = client(tokens.local);
    expect(await snapshot()).toEqual(before);
    expect((await client(tokens.ana).call(contract.me)).email).toBe('ana@example.com');
    expect((await client(tokens.ingest).call(contract.me)).sourceId).toBe(shop.id);
    await expectError(client(tokens.read).call(contract.me), 401, 'Invalid token');
    // The local user is made once: a second start adds no user and rewrites no token.
    expect(await admin(home.path, ['token', 'list', 'local@localhost'])).toContain(jti(tokens.local));
    expect(await daemon.stop()).toBe(0);
  });
});
