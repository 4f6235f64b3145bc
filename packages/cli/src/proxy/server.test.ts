import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RawData, WebSocket, WebSocketServer } from 'ws';
import type { Exchange } from './exchange.js';
import { compileGlobs } from './exclude.js';
import { toRecord } from './record.js';
import { createProxyServer, pathOf, type ProxyServer } from './server.js';
import { parseTarget } from './target.js';

const textOf = (data: RawData) =>
  (data instanceof ArrayBuffer ? Buffer.from(data) : Array.isArray(data) ? Buffer.concat(data) : data).toString();

const big = Buffer.alloc(3 * 1024 * 1024, 'abcdefghij');

/** A deterministic app: every answer is the same bytes on every call, so direct and proxied can be compared. */
function app(): http.Server {
  const server = http.createServer((req, res) => {
    res.sendDate = false;
    const url = req.url ?? '/';
    if (url === '/json')
      return res
        .writeHead(200, 'Fine Thanks', [
          'X-Mixed-Case',
          'a',
          'Set-Cookie',
          'a=1',
          'Set-Cookie',
          'b=2',
          'Content-Type',
          'application/json',
        ])
        .end('{"ok":true}');
    if (url === '/gzip')
      return res
        .writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' })
        .end(gzipSync('hello gzip'));
    if (url === '/chunked') {
      res.writeHead(200, { 'content-type': 'text/plain', Trailer: 'X-Checksum' });
      res.write('one,');
      setTimeout(() => {
        res.addTrailers({ 'X-Checksum': 'abc' });
        res.end('two');
      }, 5);
      return;
    }
    if (url === '/big')
      return res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': big.length }).end(big);
    if (url === '/slow') return void setTimeout(() => res.writeHead(200).end('late'), 300);
    if (url === '/redirect') return res.writeHead(302, { location: '/json' }).end();
    if (url.startsWith('/echo')) {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () =>
        res.writeHead(201, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            method: req.method,
            url,
            host: req.headers.host,
            xfh: req.headers['x-forwarded-host'],
            size: Buffer.concat(chunks).length,
          }),
        ),
      );
      return;
    }
    res.writeHead(404).end();
  });
  const wss = new WebSocketServer({ server });
  wss.on('connection', (ws) => ws.on('message', (data, binary) => ws.send(binary ? data : `echo ${textOf(data)}`)));
  return server;
}

interface Answer {
  status: number;
  reason: string;
  headers: string[];
  trailers: string[];
  body: Buffer;
  socketPort: number | undefined;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
function call(
  port: number,
  path: string,
  init: { method?: string; body?: Buffer | string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { port, host: '127.0.0.1', path, method: init.method ?? 'GET', headers: init.headers, agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            reason: res.statusMessage ?? '',
            headers: res.rawHeaders,
            trailers: res.rawTrailers,
            body: Buffer.concat(chunks),
            socketPort: req.socket?.localPort,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}

/** What the two sides negotiate per connection differs (keep-alive timing); everything else must match. */
function endToEnd(raw: string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (!['connection', 'keep-alive'].includes(String(raw[i]).toLowerCase()))
      kept.push(String(raw[i]), String(raw[i + 1]));
  }
  return kept;
}

let target: http.Server;
let targetPort: number;
let proxy: ProxyServer;
let proxyPort: number;
const exchanges: Exchange[] = [];

beforeAll(async () => {
  target = app();
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  targetPort = (target.address() as AddressInfo).port;
  proxy = createProxyServer({
    target: parseTarget(`http://127.0.0.1:${targetPort}`),
    maxBody: 1024,
    isExcluded: compileGlobs(['/static/**']),
    onExchange: (e) => exchanges.push(e),
  });
  proxyPort = (await proxy.listen('127.0.0.1', 0)).port;
});
afterAll(async () => {
  agent.destroy();
  await proxy.close(100);
  await new Promise((r) => target.close(r));
});

describe('forwarding', () => {
  it.each(['/json', '/gzip', '/chunked', '/big', '/redirect'])('answers %s exactly as the app does', async (path) => {
    const direct = await call(targetPort, path);
    const proxied = await call(proxyPort, path);
    expect(proxied.status).toBe(direct.status);
    expect(proxied.reason).toBe(direct.reason);
    expect(endToEnd(proxied.headers)).toEqual(endToEnd(direct.headers));
    expect(proxied.trailers).toEqual(direct.trailers);
    expect(proxied.body.equals(direct.body)).toBe(true);
  });

  it('streams a large request body through and keeps only a bounded copy for the record', async () => {
    exchanges.length = 0;
    const answer = await call(proxyPort, '/echo?x=1', {
      method: 'PUT',
      body: big,
      headers: { 'content-type': 'application/octet-stream' },
    });
    expect(JSON.parse(answer.body.toString())).toMatchObject({ method: 'PUT', size: big.length });
    await expect.poll(() => exchanges.length).toBe(1);
    const [exchange] = exchanges;
    expect(exchange?.requestBody.size).toBe(big.length);
    expect(exchange?.requestBody.bytes().length).toBeLessThan(4096);
    expect(exchange).toMatchObject({ method: 'PUT', url: '/echo?x=1', status: 201 });
  });

  it('notes when the request arrived, which the record sends as startedAt', async () => {
    exchanges.length = 0;
    const before = Date.now();
    await call(proxyPort, '/slow');
    await expect.poll(() => exchanges.length).toBe(1);
    const [exchange] = exchanges;
    expect(exchange?.startedAt).toBeGreaterThanOrEqual(before);
    // The answer took 300 ms: the start time is the arrival, not the end.
    expect(exchange?.startedAt).toBeLessThan(before + 250);
    const body = exchange && (await toRecord(exchange, parseTarget(`http://127.0.0.1:${targetPort}`), 1024));
    expect(body?.startedAt).toBe(new Date(exchange?.startedAt ?? 0).toISOString());
  });

  it('keeps the client Host for a local target and says where the request came from', async () => {
    const answer = await call(proxyPort, '/echo', { headers: { host: 'shop.test:8080' } });
    expect(JSON.parse(answer.body.toString())).toMatchObject({ host: 'shop.test:8080', xfh: 'shop.test:8080' });
  });

  it('keeps the client connection alive across requests', async () => {
    const first = await call(proxyPort, '/json');
    const second = await call(proxyPort, '/json');
    expect(second.socketPort).toBe(first.socketPort);
  });

  it('passes HEAD and OPTIONS through unrecorded and counts them, and counts excluded paths', async () => {
    exchanges.length = 0;
    const before = { ...proxy.counters, unrecorded: { ...proxy.counters.unrecorded } };
    expect((await call(proxyPort, '/json', { method: 'HEAD' })).status).toBe(200);
    expect((await call(proxyPort, '/echo', { method: 'OPTIONS' })).status).toBe(201);
    expect((await call(proxyPort, '/static/app.js')).status).toBe(404);
    expect((await call(proxyPort, '/json', { method: 'DELETE' })).status).toBe(200);
    await expect.poll(() => exchanges.length).toBe(1);
    expect(exchanges[0]?.method).toBe('DELETE');
    expect(proxy.counters.unrecorded.HEAD).toBe((before.unrecorded.HEAD ?? 0) + 1);
    expect(proxy.counters.unrecorded.OPTIONS).toBe((before.unrecorded.OPTIONS ?? 0) + 1);
    expect(proxy.counters.excluded).toBe(before.excluded + 1);
  });

  it('counts a client that leaves before the app answers, and records nothing for it', async () => {
    exchanges.length = 0;
    const before = proxy.counters.abandoned;
    const req = http.request({ port: proxyPort, host: '127.0.0.1', path: '/slow', agent: false });
    req.on('error', () => undefined);
    req.end();
    setTimeout(() => req.destroy(), 30);
    await expect.poll(() => proxy.counters.abandoned).toBe(before + 1);
    expect(exchanges).toEqual([]);
  });

  it('passes a WebSocket through and records its handshake', async () => {
    exchanges.length = 0;
    const ws = new WebSocket(`ws://127.0.0.1:${proxyPort}/socket`);
    const replies: string[] = [];
    await new Promise<void>((resolve, reject) => {
      ws.on('open', () => ws.send('hi'));
      ws.on('message', (data) => {
        replies.push(textOf(data));
        ws.close();
      });
      ws.on('close', () => resolve());
      ws.on('error', reject);
    });
    expect(replies).toEqual(['echo hi']);
    expect(exchanges).toMatchObject([{ method: 'GET', url: '/socket', status: 101, upgraded: true }]);
  });
});

describe('target down', () => {
  it('answers 502 with a short JSON explanation and records the exchange', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const seen: Exchange[] = [];
    const down = createProxyServer({
      target: parseTarget(`http://127.0.0.1:${port}`),
      maxBody: 1024,
      isExcluded: () => false,
      onExchange: (e) => seen.push(e),
    });
    const downPort = (await down.listen('127.0.0.1', 0)).port;
    try {
      const answer = await call(downPort, '/orders?page=2', {
        method: 'POST',
        body: '{"a":1}',
        headers: { 'content-type': 'application/json' },
      });
      expect(answer.status).toBe(502);
      expect(JSON.parse(answer.body.toString())).toEqual({
        statusCode: 502,
        // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- vitest's asymmetric matchers are typed `any`
        error: expect.stringContaining('ECONNREFUSED'),
      });
      await expect.poll(() => seen.length).toBe(1);
      expect(seen[0]).toMatchObject({ method: 'POST', status: 502, targetError: 'ECONNREFUSED' });
      expect(down.counters.targetErrors).toBe(1);
    } finally {
      await down.close(100);
    }
  });
});

describe('pathOf', () => {
  it('drops the query and understands absolute-form targets', () => {
    expect(pathOf('/a/b?c=1')).toBe('/a/b');
    expect(pathOf('http://h:1/x?y')).toBe('/x');
    expect(pathOf(undefined)).toBe('/');
  });
});
