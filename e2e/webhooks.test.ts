import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli, startDaemon, tempHome, type SpawnedDaemon } from './support/binaries.js';

interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** A webhook receiver on loopback, as a user's own service would be. */
async function receiver() {
  const requests: Received[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      for (const w of waiters) if (requests.length >= w.n) w.resolve();
      res.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/tapline`,
    requests,
    waitFor: (n: number) =>
      requests.length >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve })),
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function api<T>(daemon: SpawnedDaemon, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${daemon.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${daemon.token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

const failing = (sourceId: string) => ({
  domainUrl: 'https://shop.example.com',
  pathnameUrl: '/api/orders',
  trafficSourceId: sourceId,
  status: 503,
  protocol: 'HTTPS',
  method: 'POST',
  elapsedTime: 812,
  requestHeaders: {},
  queryParams: {},
  responseHeaders: {},
});

describe('webhooks from the built daemon', () => {
  let home: ReturnType<typeof tempHome>;
  let hook: Awaited<ReturnType<typeof receiver>>;
  let daemon: SpawnedDaemon | undefined;

  beforeEach(async () => {
    home = tempHome();
    hook = await receiver();
  });
  afterEach(async () => {
    await daemon?.stop();
    daemon = undefined;
    await hook.close();
    home.remove();
  });

  it('delivers a notification queued before a SIGKILL after the restart, exactly once', async () => {
    // Queue without sending, so the kill surely lands before delivery.
    daemon = await startDaemon(home.path, ['--allow-private-webhooks', '--no-webhook-delivery']);
    const source = await api<{ id: string }>(daemon, 'POST', '/traffic-source', {
      name: 'shop',
      trafficDomain: 'shop.example.com',
    });
    const webhook = await api<{ id: string; secret: string }>(daemon, 'POST', `/webhooks/${source.id}`, {
      type: 'http',
      level: 'fatal',
      value: hook.url,
    });
    const first = await api<{ id: string }>(daemon, 'POST', `/http-traffic-record/${source.id}`, failing(source.id));
    const before = await api<{ meta: { total: number } }>(daemon, 'GET', `/webhooks/${webhook.id}/deliveries`);
    expect(before.meta.total).toBe(0);
    await daemon.kill();

    daemon = await startDaemon(home.path, ['--allow-private-webhooks']);
    await hook.waitFor(1);
    const payload = JSON.parse(hook.requests[0]!.body) as {
      event: string;
      webhookId: string;
      entry: { id: string; level: string };
    };
    expect(payload).toMatchObject({ event: 'traffic', webhookId: webhook.id, entry: { id: first.id, level: 'FATAL' } });
    const signature = `sha256=${createHmac('sha256', webhook.secret).update(hook.requests[0]!.body).digest('hex')}`;
    expect(hook.requests[0]!.headers['x-tapline-signature']).toBe(signature);

    // A second entry arrives after the worker has been through the queue once: had the first
    // been queued twice, its copy would have come before this one.
    const second = await api<{ id: string }>(daemon, 'POST', `/http-traffic-record/${source.id}`, failing(source.id));
    await hook.waitFor(2);
    const ids = hook.requests.map((r) => (JSON.parse(r.body) as { entry: { id: string } }).entry.id);
    expect(ids).toEqual([first.id, second.id]);
    const after = await api<{ data: { outcome: string; httpTrafficId: string }[] }>(
      daemon,
      'GET',
      `/webhooks/${webhook.id}/deliveries`,
    );
    expect(after.data.map((a) => [a.httpTrafficId, a.outcome])).toEqual([
      [second.id, 'delivered'],
      [first.id, 'delivered'],
    ]);
  }, 60_000);

  it('sends nothing queued for a webhook once its DELETE has answered 204', async () => {
    const other = await receiver();
    try {
      daemon = await startDaemon(home.path, ['--allow-private-webhooks', '--no-webhook-delivery']);
      const source = await api<{ id: string }>(daemon, 'POST', '/traffic-source', {
        name: 'shop',
        trafficDomain: 'shop.example.com',
      });
      const doomed = await api<{ id: string }>(daemon, 'POST', `/webhooks/${source.id}`, {
        type: 'http',
        level: 'fatal',
        value: hook.url,
      });
      for (let i = 0; i < 3; i++) await api(daemon, 'POST', `/http-traffic-record/${source.id}`, failing(source.id));
      await api(daemon, 'DELETE', `/webhooks/${doomed.id}`);
      await daemon.stop();

      daemon = await startDaemon(home.path, ['--allow-private-webhooks']);
      await api(daemon, 'POST', `/webhooks/${source.id}`, { type: 'http', level: 'fatal', value: other.url });
      await api(daemon, 'POST', `/http-traffic-record/${source.id}`, failing(source.id));
      // The worker has been through the queue (the new webhook got its message); the old one got nothing.
      await other.waitFor(1);
      expect(hook.requests).toHaveLength(0);
    } finally {
      await other.close();
    }
  });

  it('tapline webhooks test and deliveries, as a new user would try them', async () => {
    daemon = await startDaemon(home.path, ['--allow-private-webhooks']);
    const env = { TAPLINE_URL: daemon.url };
    expect((await cli(['sources', 'add', 'shop', 'shop.example.com'], { home: home.path, env })).exitCode).toBe(0);
    const added = await cli(
      ['--json', 'webhooks', 'add', 'shop', '--type', 'http', '--level', 'fatal', '--value', hook.url],
      { home: home.path, env },
    );
    expect(added.exitCode).toBe(0);
    const webhook = JSON.parse(added.stdout) as { id: string };

    const test = await cli(['webhooks', 'test', webhook.id], { home: home.path, env });
    expect(test).toMatchObject({ exitCode: 0 });
    expect(test.stdout).toContain('delivered test message (answered 204');
    expect(JSON.parse(hook.requests[0]!.body)).toMatchObject({ event: 'test', webhookId: webhook.id });

    const listed = await cli(['--json', 'webhooks', 'deliveries', webhook.id], { home: home.path, env });
    expect(listed.exitCode).toBe(0);
    const page = JSON.parse(listed.stdout) as {
      data: { kind: string; outcome: string; statusCode: number }[];
      meta: { total: number };
    };
    expect(page.meta.total).toBe(1);
    expect(page.data[0]).toMatchObject({ kind: 'test', outcome: 'delivered', statusCode: 204 });
    const table = await cli(['webhooks', 'deliveries', webhook.id], { home: home.path, env });
    expect(table.stdout).toMatch(/test\s+1\s+delivered\s+204/);

    await hook.close();
    const down = await cli(['webhooks', 'test', webhook.id], { home: home.path, env });
    expect(down.exitCode).toBe(1);
    expect(down.stdout).toContain('not delivered');
  });
});
