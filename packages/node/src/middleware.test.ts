import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { contract, type TaplineClient } from '@tapline/shared';
import express from 'express';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
// The daemon's in-process harness: the app factory on an in-memory database.
import { type Harness, startHarness } from '@tapline/testkit/daemon';
import { tapline, type Tapline } from './index.js';

async function listen(server: Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

describe('@tapline/node against a daemon', () => {
  let h: Harness;
  let owner: TaplineClient;
  let sourceId: string;
  let ingestToken: string;
  let t: Tapline;
  let app: Server;
  let base: string;

  beforeEach(async () => {
    h = await startHarness();
    const user = await h.user();
    owner = user.client;
    sourceId = (
      await owner.call(contract.createTrafficSource, { body: { name: 'orders-api', trafficDomain: 'orders.local' } })
    ).id;
    const ingest = await h.deps.tokens.issue({ userId: user.id, scope: 'ingest', sourceId: null, expiresAt: null });
    ingestToken = ingest.token;
  });
  afterEach(async () => {
    await t?.close(1000);
    if (app) await close(app);
    await h.close();
  });

  async function startExpressApp() {
    t = tapline({
      url: h.url,
      token: ingestToken,
      source: 'orders-api',
      service: 'orders-api',
      queue: { flushIntervalMs: 10 },
    });
    const e = express();
    e.use(t);
    e.use(express.json());
    e.get('/orders', (_req, res) => {
      res.json({ orders: [1, 2] });
    });
    e.post('/orders', (req, res) => {
      res.status(201).json({ created: true, echo: req.body as unknown });
    });
    e.put('/notes/:id', (_req, res) => {
      res.type('text/plain').send('saved');
    });
    e.get('/logo.png', (_req, res) => {
      res.type('image/png').send(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]));
    });
    e.get('/zipped', (_req, res) => {
      res
        .set({ 'content-type': 'application/json', 'content-encoding': 'gzip' })
        .send(gzipSync(JSON.stringify({ zipped: true })));
    });
    e.get('/boom', () => {
      throw new TypeError('order 7 has no customer');
    });
    e.delete('/orders/:id', (req, res) => {
      t.captureError(new Error('soft failure while deleting'), req, { layer: 'Database' });
      res.status(204).end();
    });
    e.use(tapline.errorHandler());
    app = createServer(e);
    base = await listen(app);
  }

  const entries = async () =>
    (await owner.call(contract.listTraffic, { params: { trafficSourceId: sourceId }, query: { limit: 100 } })).data;
  const record = (id: string) => owner.call(contract.getTraffic, { params: { trafficSourceId: sourceId, id } });

  it("sends Express's matched route (mount path plus route path) as the entry's template; a request no route answered gets an inferred one", async () => {
    t = tapline({
      url: h.url,
      token: ingestToken,
      source: 'orders-api',
      service: 'orders-api',
      queue: { flushIntervalMs: 10 },
    });
    const e = express();
    e.use(t);
    const shops = express.Router({ mergeParams: true });
    shops.get('/:orderId', (_req, res) => {
      res.json({ ok: true });
    });
    shops.get('/', (_req, res) => {
      res.json([]);
    });
    e.use('/shops/:shopId/orders', shops);
    e.get('/slugs/:slug', (_req, res) => {
      res.json({ ok: true });
    });
    app = createServer(e);
    base = await listen(app);
    await fetch(`${base}/shops/7/orders/981`);
    await fetch(`${base}/shops/7/orders`);
    await fetch(`${base}/slugs/blue-shirt`);
    await fetch(`${base}/nowhere/42`);
    expect(await t.flush()).toBe(true);
    const routes = Object.fromEntries((await entries()).map((entry) => [entry.pathname, entry.route]));
    expect(routes).toEqual({
      '/shops/7/orders/981': '/shops/{shopId}/orders/{orderId}',
      '/shops/7/orders': '/shops/{shopId}/orders',
      '/slugs/blue-shirt': '/slugs/{slug}',
      '/nowhere/42': '/nowhere/{id}',
    });
  });

  it('records each request and response with the capture rules, secrets redacted by the daemon', async () => {
    await startExpressApp();
    expect((await fetch(`${base}/orders?page=2&tag=a&tag=b`)).status).toBe(200);
    const posted = await fetch(`${base}/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer app-secret' },
      body: JSON.stringify({ item: 'book', password: 'hunter2' }),
    });
    expect(await posted.json()).toEqual({ created: true, echo: { item: 'book', password: 'hunter2' } });
    await fetch(`${base}/notes/1`, { method: 'PUT', body: 'note text', headers: { 'content-type': 'text/plain' } });
    await fetch(`${base}/logo.png`);
    expect(await (await fetch(`${base}/zipped`)).json()).toEqual({ zipped: true });
    expect((await fetch(`${base}/orders`, { method: 'HEAD' })).status).toBe(200);
    expect(await t.flush()).toBe(true);

    const list = await entries();
    expect(list).toHaveLength(5);
    const byPath = async (method: string, pathname: string) => {
      const entry = list.find((e) => e.method === method && e.pathname === pathname);
      expect(entry, `${method} ${pathname}`).toBeDefined();
      return record(entry?.id ?? '');
    };
    const get = await byPath('GET', '/orders');
    expect(get).toMatchObject({
      status: 200,
      protocol: 'HTTP',
      request: { queryParams: { page: '2', tag: ['a', 'b'] } },
      response: { body: { orders: [1, 2] } },
    });
    expect(get.domain).toMatch(/^127\.0\.0\.1:\d+$/);
    const post = await byPath('POST', '/orders');
    expect(post).toMatchObject({
      status: 201,
      request: { headers: { authorization: '[REDACTED]' }, body: { item: 'book', password: '[REDACTED]' } },
      response: { body: { created: true, echo: { item: 'book', password: '[REDACTED]' } } },
    });
    expect(await byPath('PUT', '/notes/1')).toMatchObject({
      request: { body: 'note text' },
      response: { body: 'saved' },
    });
    expect((await byPath('GET', '/logo.png')).response.body).toBe('[binary body: image/png, 8 bytes]');
    expect((await byPath('GET', '/zipped')).response.body).toEqual({ zipped: true });
    expect(t.stats()).toMatchObject({ sent: 5, skipped: 1, dropped: 0 });
  });

  it.each([
    {
      what: 'a bad token',
      token: () => 'tl_not-a-real-token',
      source: 'orders-api',
      line: /\(401 Invalid token\): check the token\./,
      by: 'unauthorized',
    },
    {
      what: 'an unknown source',
      token: () => ingestToken,
      source: 'no-such-api',
      line: /\(404 no traffic source named "no-such-api" is visible to this token\)/,
      by: 'notFound',
    },
  ])(
    'with $what: one warning line with the status and the message, never the token; nothing retried, every record counted',
    async ({ token, source, line, by }) => {
      const lines: string[] = [];
      t = tapline({
        url: h.url,
        token: token(),
        source,
        logger: { warn: (m) => lines.push(m) },
        queue: { flushIntervalMs: 5 },
      });
      app = createServer(t.wrap((_req, res) => res.end('ok')));
      base = await listen(app);
      for (let i = 0; i < 3; i++) {
        expect(await (await fetch(`${base}/r/${i}`)).text()).toBe('ok');
        expect(await t.flush(2_000)).toBe(true);
      }
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(line);
      expect(lines[0]).toContain(h.url);
      expect(lines[0]).not.toContain(token());
      expect(t.stats()).toMatchObject({
        sent: 0,
        failures: 0,
        queued: 0,
        rejected: 3,
        rejectedBy: { [by]: 3 },
        refusal: { status: source === 'orders-api' ? 401 : 404 },
      });
    },
  );

  it("takes no recorder's `post` through `queue`: records go through the middleware's own client", async () => {
    const posts: string[] = [];
    const queue = { flushIntervalMs: 10, post: (path: string) => (posts.push(path), Promise.reject(new Error('no'))) };
    t = tapline({ url: h.url, token: ingestToken, source: 'orders-api', queue });
    app = createServer((req, res) => t(req, res, () => res.end('ok')));
    base = await listen(app);
    await fetch(`${base}/from-js`);
    expect(await t.flush()).toBe(true);
    expect(posts).toEqual([]);
    expect((await entries()).map((entry) => entry.pathname)).toEqual(['/from-js']);
  });

  it('sends when the request arrived as startedAt, so a late flush keeps the real time', async () => {
    await h.close();
    // A daemon clock a day ahead: an entry stored at receipt would show tomorrow's date.
    h = await startHarness({ clock: { now: () => new Date(Date.now() + 86_400_000) } });
    const user = await h.user();
    owner = user.client;
    sourceId = (
      await owner.call(contract.createTrafficSource, { body: { name: 'orders-api', trafficDomain: 'orders.local' } })
    ).id;
    ingestToken = (await h.deps.tokens.issue({ userId: user.id, scope: 'ingest', sourceId: null, expiresAt: null }))
      .token;
    await startExpressApp();
    const before = Date.now();
    await fetch(`${base}/orders`);
    const after = Date.now();
    expect(await t.flush()).toBe(true);
    const [entry] = await entries();
    expect(Date.parse(entry?.createdAt ?? '')).toBeGreaterThanOrEqual(before);
    expect(Date.parse(entry?.createdAt ?? '')).toBeLessThanOrEqual(after);
  });

  it('turns a thrown error into a core log linked to the failing request', async () => {
    await startExpressApp();
    expect((await fetch(`${base}/boom`)).status).toBe(500);
    expect(await t.flush()).toBe(true);
    const [entry] = await entries();
    expect(entry).toMatchObject({ status: 500, level: 'FATAL', pathname: '/boom' });
    const logs = (await owner.call(contract.listCoreLogs, { params: { trafficSourceId: sourceId } })).data;
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({
      title: 'TypeError in GET /boom',
      description: 'order 7 has no customer',
      source: 'orders-api',
      layer: 'Application',
      httpTrafficId: entry?.id,
    });
    expect(logs[0]?.stack).toMatch(/^TypeError: order 7 has no customer\n\s+at /);
  });

  it('links errors captured by hand to the request they happened in', async () => {
    await startExpressApp();
    expect((await fetch(`${base}/orders/7`, { method: 'DELETE' })).status).toBe(204);
    expect(await t.flush()).toBe(true);
    const [entry] = await entries();
    const logs = (await owner.call(contract.listCoreLogs, { params: { trafficSourceId: sourceId } })).data;
    expect(logs).toMatchObject([
      { description: 'soft failure while deleting', layer: 'Database', httpTrafficId: entry?.id },
    ]);
  });

  it('wraps a plain node:http handler: records, and a throw becomes a 500 and a linked core log', async () => {
    t = tapline({ url: h.url, token: ingestToken, source: sourceId, queue: { flushIntervalMs: 10 } });
    app = createServer(
      t.wrap(async (req, res) => {
        if (req.url === '/fail') throw new RangeError('bad range');
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ plain: true }));
      }),
    );
    base = await listen(app);
    expect(await (await fetch(`${base}/ok`)).json()).toEqual({ plain: true });
    expect((await fetch(`${base}/fail`)).status).toBe(500);
    expect(await t.flush()).toBe(true);
    const list = await entries();
    expect(list.map((e) => `${e.status} ${e.pathname}`).sort()).toEqual(['200 /ok', '500 /fail']);
    const logs = (await owner.call(contract.listCoreLogs, { params: { trafficSourceId: sourceId } })).data;
    expect(logs).toMatchObject([
      { title: 'RangeError in GET /fail', httpTrafficId: list.find((e) => e.status === 500)?.id },
    ]);
  });
});

describe('@tapline/node when the daemon is down or slow', () => {
  let app: Server | undefined;
  let t: Tapline | undefined;
  let hang: Server | undefined;
  afterEach(async () => {
    await t?.close(50);
    if (app) await close(app);
    if (hang) await close(hang);
    app = hang = t = undefined;
  });

  async function appWith(url: string) {
    const drops: number[] = [];
    t = tapline({
      url,
      token: 'any',
      source: 'demo',
      queue: {
        maxQueue: 5,
        flushIntervalMs: 5,
        retry: { initialMs: 20, maxMs: 100 },
        onDrop: (e) => drops.push(e.total),
      },
    });
    const e = express();
    e.use(t);
    e.post('/work', express.json(), (req, res) => {
      res.json({ got: req.body as unknown });
    });
    e.get('/boom', () => {
      throw new Error('no daemon to tell');
    });
    e.use(tapline.errorHandler());
    app = createServer(e);
    return { base: await listen(app), drops };
  }

  async function answersEveryRequest(base: string) {
    const started = performance.now();
    for (let i = 0; i < 20; i++) {
      const response = await fetch(`${base}/work`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ i }),
      });
      expect(await response.json()).toEqual({ got: { i } });
    }
    expect((await fetch(`${base}/boom`)).status).toBe(500);
    return performance.now() - started;
  }

  it('never blocks or fails the app with nothing listening, and counts drops', async () => {
    // A port that was free a moment ago: connections are refused.
    const probe = createServer();
    const deadUrl = await listen(probe);
    await close(probe);
    const { base, drops } = await appWith(deadUrl);
    const elapsed = await answersEveryRequest(base);
    expect(elapsed).toBeLessThan(2000);
    expect(await t?.flush(100)).toBe(false);
    const stats = t?.stats();
    expect(stats?.dropped).toBeGreaterThanOrEqual(16);
    expect(stats?.failures).toBeGreaterThan(0);
    expect(drops.at(-1)).toBe(stats?.dropped);
  });

  it('never blocks when the daemon accepts connections but never answers', async () => {
    hang = createServer(() => {
      // Holds every request open.
    });
    const { base } = await appWith(await listen(hang));
    const elapsed = await answersEveryRequest(base);
    expect(elapsed).toBeLessThan(2000);
    expect(t?.stats().queued).toBeLessThanOrEqual(5);
  });
});
