import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { admin, startDaemon, startProxy, tempHome, type SpawnedDaemon, type SpawnedProxy } from './support/binaries.js';

/**
 * `tapline proxy` from the built binary, between a plain client and a real Express app, recording
 * to the built daemon with an ingest-scoped token. Steps share state and run in order.
 */

const binary = Buffer.from(Array.from({ length: 1024 }, (_, i) => i % 256));
const large = 'x'.repeat(2 * 1024 * 1024);
const gzipped = gzipSync(JSON.stringify({ compressed: true, items: [1, 2, 3] }));

function appServer(): http.Server {
  const app = express();
  app.disable('etag');
  app.use(express.raw({ type: () => true, limit: '10mb' }));
  app.get('/json', (_req, res) => res.json({ hello: 'world', n: 1 }));
  app.get('/text', (_req, res) => res.type('text/plain').send('plain text answer'));
  app.get('/binary', (_req, res) => res.type('application/octet-stream').send(binary));
  app.get('/gzip', (_req, res) =>
    res.set({ 'content-type': 'application/json', 'content-encoding': 'gzip' }).send(gzipped),
  );
  app.get('/large', (_req, res) => res.type('text/plain').send(large));
  app.get('/redirect', (_req, res) => res.redirect(302, '/json'));
  app.get('/chunked', (_req, res) => {
    res.type('text/plain');
    res.write('first,');
    setTimeout(() => res.end('second'), 20);
  });
  app.all('/items', (req, res) => {
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    res.status(req.method === 'POST' ? 201 : 200).json({ method: req.method, received: body.length, query: req.query });
  });
  const server = http.createServer(app);
  const wss = new WebSocketServer({ server, path: '/ws' });
  wss.on('connection', (socket) => socket.on('message', (data, isBinary) => socket.send(data, { binary: isBinary })));
  return server;
}

interface Answer {
  readonly status: number;
  readonly reason: string;
  readonly headers: string[];
  readonly body: Buffer;
}

/** One request on its own connection, answered as raw as node:http gives it. */
function send(
  base: string,
  path: string,
  method = 'GET',
  body?: Buffer | string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${path}`, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          reason: res.statusMessage ?? '',
          headers: res.rawHeaders,
          body: Buffer.concat(chunks),
        }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The end-to-end part of an answer: the per-connection headers differ by design, and Date by the clock. */
function comparable(answer: Answer) {
  const headers: string[] = [];
  for (let i = 0; i + 1 < answer.headers.length; i += 2) {
    if (!['connection', 'keep-alive', 'date'].includes(String(answer.headers[i]).toLowerCase()))
      headers.push(String(answer.headers[i]), String(answer.headers[i + 1]));
  }
  return { status: answer.status, reason: answer.reason, headers, body: answer.body.toString('base64') };
}

let home: ReturnType<typeof tempHome>;
let daemon: SpawnedDaemon;
let app: http.Server;
let appUrl = '';
let proxy: SpawnedProxy;
let sourceId = '';

const api = async (path: string, init: RequestInit = {}) => {
  const response = await fetch(`${daemon.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json' },
  });
  return (await response.json()) as Record<string, unknown> & { data: Record<string, unknown>[] };
};

beforeAll(async () => {
  home = tempHome();
  daemon = await startDaemon(home.path);
  const source = await api('/traffic-source', {
    method: 'POST',
    body: JSON.stringify({ name: 'demo', trafficDomain: 'localhost' }),
  });
  sourceId = String(source.id);
  const ingestToken = await admin(home.path, ['token', 'create', 'local@localhost', '--scope', 'ingest']);
  app = appServer();
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
  // A small queue, so that the daemon-down step overflows it with a few dozen requests.
  proxy = await startProxy([
    '--url',
    daemon.url,
    '--token',
    ingestToken,
    'proxy',
    '--source',
    'demo',
    '--target',
    appUrl,
    '--listen',
    '127.0.0.1:0',
    '--max-queue',
    '20',
    '--exclude',
    '/health',
  ]);
});

afterAll(async () => {
  proxy?.child.kill('SIGKILL');
  await proxy?.child;
  app?.closeAllConnections();
  await new Promise((resolve) => app?.close(resolve));
  await daemon?.stop().catch(() => undefined);
  home?.remove();
});

const requests: [string, string, string?][] = [
  ['GET', '/json'],
  ['GET', '/text'],
  ['GET', '/binary'],
  ['GET', '/gzip'],
  ['GET', '/chunked'],
  ['GET', '/large'],
  ['GET', '/redirect'],
  ['POST', '/items?tag=a&tag=b', '{"name":"widget","qty":2}'],
  ['PUT', '/items?id=7', '{"name":"gadget"}'],
  ['PATCH', '/items?id=7', '{"qty":3}'],
  ['DELETE', '/items?id=7'],
  ['HEAD', '/json'],
  ['OPTIONS', '/items'],
];

describe('tapline proxy', () => {
  it.each(requests)('answers %s %s byte for byte as the app does', async (method, path, body) => {
    const headers: Record<string, string> = body ? { 'content-type': 'application/json' } : {};
    const direct = await send(appUrl, path, method, body, headers);
    const proxied = await send(proxy.url, path, method, body, headers);
    expect(comparable(proxied)).toEqual(comparable(direct));
  });

  it('passes a WebSocket through, text and binary frames unchanged', async () => {
    const ws = new WebSocket(`${proxy.url.replace('http', 'ws')}/ws`);
    const replies: { data: Buffer; binary: boolean }[] = [];
    await new Promise<void>((resolve, reject) => {
      ws.on('open', () => {
        ws.send('hello over the proxy');
        ws.send(binary);
      });
      ws.on('message', (data: Buffer, isBinary) => {
        replies.push({ data, binary: isBinary });
        if (replies.length === 2) ws.close();
      });
      ws.on('close', () => resolve());
      ws.on('error', reject);
    });
    expect(replies[0]).toEqual({ data: Buffer.from('hello over the proxy'), binary: false });
    expect(replies[1]?.binary).toBe(true);
    expect(replies[1]?.data.equals(binary)).toBe(true);
  });

  it('leaves excluded paths unrecorded but still forwards them', async () => {
    expect((await send(proxy.url, '/health')).status).toBe(404);
  });

  it('stores a record of each proxied exchange of the five methods, and none of HEAD or OPTIONS', async () => {
    // Only the proxied half of each comparison passed the proxy.
    const expected = requests.filter(([m]) => m !== 'HEAD' && m !== 'OPTIONS').length + 1; // + the WebSocket handshake
    let entries: Record<string, unknown>[] = [];
    await expect
      .poll(
        async () => {
          entries = (await api(`/http-traffic/${sourceId}?limit=100`)).data;
          return entries.length;
        },
        { timeout: 10_000 },
      )
      .toBe(expected);
    const seen = entries.map((e) => `${String(e.method)} ${String(e.pathname)} ${String(e.status)}`).sort();
    expect(seen).toEqual(
      [
        'GET /json 200',
        'GET /text 200',
        'GET /binary 200',
        'GET /gzip 200',
        'GET /chunked 200',
        'GET /large 200',
        'GET /redirect 302',
        'POST /items 201',
        'PUT /items 200',
        'PATCH /items 200',
        'DELETE /items 200',
        'GET /ws 101',
      ].sort(),
    );
    expect(new Set(entries.map((e) => e.domain))).toEqual(new Set([new URL(appUrl).host]));

    const record = async (method: string, pathname: string) => {
      const entry = entries.find((e) => e.method === method && e.pathname === pathname);
      return (await api(`/http-traffic/${sourceId}/${String(entry?.id)}`)) as unknown as {
        request: { body: unknown; queryParams: unknown; headers: Record<string, unknown> };
        response: { body: unknown; headers: Record<string, unknown> };
        protocol: string;
      };
    };
    expect((await record('GET', '/json')).response.body).toEqual({ hello: 'world', n: 1 });
    expect((await record('GET', '/text')).response.body).toBe('plain text answer');
    expect((await record('GET', '/binary')).response.body).toBe('[binary body: application/octet-stream, 1024 bytes]');
    const gzip = await record('GET', '/gzip');
    expect(gzip.response.body).toEqual({ compressed: true, items: [1, 2, 3] });
    expect(gzip.response.headers['content-encoding']).toBe('gzip');
    expect((await record('GET', '/chunked')).response.body).toBe('first,second');
    const big = (await record('GET', '/large')).response.body as string;
    expect(big.startsWith('x'.repeat(1000))).toBe(true);
    expect(big).toMatch(/^x{65536}…\[truncated by Tapline: (first 65536|65536 of 2097152) bytes shown\]$/);
    const post = await record('POST', '/items');
    expect(post.request.body).toEqual({ name: 'widget', qty: 2 });
    expect(post.request.queryParams).toEqual({ tag: ['a', 'b'] });
    expect(post.response.body).toEqual({ method: 'POST', received: 25, query: { tag: ['a', 'b'] } });
    expect(post.protocol).toBe('HTTP');
    expect((await record('DELETE', '/items')).request.body).toBeNull();
  });

  it('answers 502 with a JSON explanation when the target is down, and records that exchange', async () => {
    const gone = http.createServer();
    await new Promise<void>((resolve) => gone.listen(0, '127.0.0.1', resolve));
    const deadTarget = `http://127.0.0.1:${(gone.address() as AddressInfo).port}`;
    await new Promise((resolve) => gone.close(resolve));
    const second = await startProxy([
      '--url',
      daemon.url,
      '--token',
      daemon.token,
      'proxy',
      '--source',
      sourceId,
      '--target',
      deadTarget,
      '--listen',
      '127.0.0.1:0',
    ]);
    try {
      const answer = await send(second.url, '/checkout?step=2', 'POST', '{"cart":1}', {
        'content-type': 'application/json',
      });
      expect(answer.status).toBe(502);
      expect(JSON.parse(answer.body.toString())).toEqual({
        statusCode: 502,
        error: `Bad Gateway: tapline proxy could not reach ${deadTarget} (ECONNREFUSED)`,
      });
      await expect
        .poll(
          async () =>
            (await api(`/http-traffic/${sourceId}?status=502`)).data.map(
              (e) => `${String(e.method)} ${String(e.pathname)} ${String(e.level)}`,
            ),
          { timeout: 10_000 },
        )
        .toEqual(['POST /checkout FATAL']);
    } finally {
      second.child.kill('SIGINT');
      await second.child;
    }
  });

  const DOWN = 40;
  it('keeps answering with the daemon stopped, then reports the dropped records and counts on Ctrl-C', async () => {
    await daemon.stop();
    const answers = await Promise.all(
      Array.from({ length: DOWN }, (_, i) =>
        send(proxy.url, `/items?n=${i}`, 'POST', '{}', { 'content-type': 'application/json' }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(DOWN).fill(201));
    // The queue holds 20: the rest are dropped as they come, and said so on stderr.
    await expect
      .poll(() => proxy.stderr(), { timeout: 10_000 })
      .toMatch(/record queue is full \(daemon slow or down\); \d+ records dropped so far/);

    proxy.child.kill('SIGINT');
    const result = await proxy.child;
    expect(result.exitCode).toBe(0);
    const summary =
      /tapline proxy: forwarded (\d+); stored (\d+); dropped (\d+); excluded (\d+); not recorded by method (\d+) \(([^)]*)\)/.exec(
        proxy.stderr(),
      );
    expect(summary).not.toBeNull();
    const [, forwarded, stored, dropped, excluded, byMethod, methods] = summary ?? [];
    expect(Number(stored)).toBe(12);
    // Dropped as the queue overflowed, plus those still queued when Ctrl-C gave up on the daemon.
    expect(Number(dropped)).toBe(DOWN);
    expect(Number(excluded)).toBe(1);
    expect(Number(byMethod)).toBe(2);
    expect(methods).toBe('HEAD 1, OPTIONS 1');
    expect(Number(forwarded)).toBe(requests.length + 1 + 1 + DOWN);
  }, 30_000);
});
