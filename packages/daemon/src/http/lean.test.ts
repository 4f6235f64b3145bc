import type { RequestListener, Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { adminShutdown, composeBody, databaseOutage, MISSING_ID, openTestDatabase } from '@tapline/testkit/daemon';
import type { Scope } from '@tapline/shared';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../app.js';
import { createUser } from '../auth/users.js';
import { defaultConfig } from '../config.js';
import { createTrafficSource } from '../traffic-sources/repo.js';
import { listen } from './listen.js';

/** What a server with only the lean path answers when it would hand a request to Express. */
const NOT_LEAN = 599;

/**
 * One app served three ways on one database: as the daemon serves it (the lean path, then
 * Express), by Express alone, and by the lean path alone.
 */
async function threeServers() {
  const opened = await openTestDatabase();
  const config = defaultConfig('0.0.0-test');
  // A batch of a few records counts as large here, so the gate's path is exercised too.
  const { app, handler, lean, deps, stop } = createApp({
    db: opened.db,
    dialect: opened.dialect,
    config: { ...config, limits: { ...config.limits, largeBatchBytes: 2048 } },
    logger: pino({ level: 'silent' }),
    pruner: { start: false },
    webhooks: { start: false },
  });
  const servers: Server[] = [];
  const urlOf = async (listener: RequestListener) => {
    const server = await listen(listener, 0, '127.0.0.1', deps.logger);
    servers.push(server);
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  const user = async (email: string, scope: Scope = 'full') => {
    const created = await createUser(opened.db, deps.clock, { email });
    return { id: created.id, token: (await deps.tokens.issue({ userId: created.id, scope })).token };
  };
  const owner = await user('owner@example.com');
  return {
    deps,
    daemon: await urlOf(handler),
    express: await urlOf(app),
    lean: await urlOf((req, res) => lean(req, res, () => res.writeHead(NOT_LEAN).end())),
    owner,
    user,
    source: await createTrafficSource(opened.db, deps.clock, owner.id, {
      name: 'lean',
      trafficDomain: 'shop.example.com',
    }),
    async close() {
      for (const server of servers) {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
      await stop();
      await opened.close();
    },
  };
}

type Servers = Awaited<ReturnType<typeof threeServers>>;

interface Sent {
  readonly path: string;
  readonly body?: string | Uint8Array;
  readonly token?: string | null;
  readonly headers?: Record<string, string>;
}

async function send(base: string, s: Servers, { path, body, token = s.owner.token, headers = {} }: Sent) {
  const response = await fetch(base + path, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      ...headers,
    },
    ...(body === undefined ? {} : { body }),
  });
  const answered = [...response.headers].filter(([name]) => name !== 'date' && name !== 'keep-alive');
  return { status: response.status, headers: answered, text: await response.text() };
}

describe('the lean ingest path', () => {
  let s: Servers;
  beforeAll(async () => (s = await threeServers()));
  afterAll(() => s.close());

  const single = () => `/http-traffic-record/${s.source.id}`;
  const compose = (overrides = {}) => JSON.stringify(composeBody(s.source.id, overrides));

  it('serves a compose, a batch (small and large) and /ingest-log by itself, with the answers Express gives', async () => {
    const created = await send(s.lean, s, { path: single(), body: compose() });
    expect(created.status).toBe(201);
    expect(created.headers).toEqual([
      ['connection', 'keep-alive'],
      ['content-length', String(Buffer.byteLength(created.text))],
      ['content-type', 'application/json; charset=utf-8'],
    ]);
    const record = JSON.parse(created.text) as { id: string };
    const read = await fetch(`${s.daemon}/http-traffic/${s.source.id}/${record.id}`, {
      headers: { authorization: `Bearer ${s.owner.token}` },
    });
    expect(await read.json()).toEqual(record);

    for (const size of [2, 20]) {
      const batch = await send(s.lean, s, {
        path: `${single()}/batch`,
        body: `[${Array.from({ length: size }, () => compose()).join(',')}]`,
      });
      expect(batch.status).toBe(201);
      expect((JSON.parse(batch.text) as { ids: string[] }).ids).toHaveLength(size);
    }
    const arkyn = {
      ...composeBody(s.source.id),
      requestHeaders: '{}',
      queryParams: '{}',
      responseHeaders: '{}',
      requestBody: 'null',
      responseBody: '{"ok":true}',
    };
    expect((await send(s.lean, s, { path: '/ingest-log', body: JSON.stringify(arkyn) })).status).toBe(201);
  });

  it('leaves to Express what it does not read: no or a refused token, compressed, chunked or UTF-16 bodies, other paths', async () => {
    const bodies: Sent[] = [
      { path: single(), body: compose(), token: null },
      { path: single(), body: compose(), token: 'not-a-token' },
      { path: single(), body: gzipSync(compose()), headers: { 'content-encoding': 'gzip' } },
      {
        path: single(),
        body: Buffer.from(compose(), 'utf16le'),
        headers: { 'content-type': 'application/json; charset=utf-16le' },
      },
      { path: single().toUpperCase(), body: compose() },
      { path: `${single()}/extra`, body: compose() },
      { path: single(), body: '' },
    ];
    for (const sent of bodies)
      expect((await send(s.lean, s, sent)).status, JSON.stringify(sent.headers ?? sent.path)).toBe(NOT_LEAN);
    const chunked = new ReadableStream({ start: (c) => (c.enqueue(new TextEncoder().encode(compose())), c.close()) });
    const streamed = await fetch(s.lean + single(), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${s.owner.token}` },
      body: chunked,
      duplex: 'half',
    });
    expect(streamed.status).toBe(NOT_LEAN);
  });

  it('answers every bad input exactly as Express does: status, headers and body', async () => {
    const stranger = await s.user('stranger@example.com');
    const reader = await s.user('reader@example.com', 'read');
    const batch = `${single()}/batch`;
    const cases: Record<string, Sent> = {
      'malformed JSON': { path: single(), body: '{"domainUrl":' },
      'bytes that are not UTF-8': { path: single(), body: Buffer.from([0x7b, 0xff, 0x7d]) },
      // body-parser takes a body that is empty once its byte-order mark is dropped as `{}`.
      'a byte-order mark and nothing else': { path: single(), body: '\uFEFF' },
      'two byte-order marks': { path: single(), body: `\uFEFF\uFEFF${compose()}` },
      'a batch of a byte-order mark and nothing else': { path: batch, body: '\uFEFF' },
      'nesting past the limit': { path: single(), body: `${'['.repeat(300)}${']'.repeat(300)}` },
      'a missing field': { path: single(), body: JSON.stringify({ ...composeBody(s.source.id), status: undefined }) },
      'a bad method and status': { path: single(), body: compose({ method: 'FETCH', status: 99 }) },
      'a body of the wrong type': { path: single(), body: '"text"' },
      'another source in the body': { path: single(), body: compose({ trafficSourceId: MISSING_ID }) },
      'a path id that is no UUID': { path: '/http-traffic-record/abc', body: JSON.stringify(composeBody('abc')) },
      'an unknown source': {
        path: `/http-traffic-record/${MISSING_ID}`,
        body: JSON.stringify(composeBody(MISSING_ID)),
      },
      "another user's source": { path: single(), body: compose(), token: stranger.token },
      'a token without the ingest scope': { path: single(), body: compose(), token: reader.token },
      'a startedAt far ahead': { path: single(), body: compose({ startedAt: '2999-01-01T00:00:00.000Z' }) },
      'a refused token': { path: single(), body: compose(), token: 'not-a-token' },
      'a type that is not JSON': { path: single(), body: compose(), headers: { 'content-type': 'text/plain' } },
      'a batch that is not an array': { path: batch, body: compose() },
      'an empty batch': { path: batch, body: '[]' },
      'a batch with a bad item': { path: batch, body: `[${compose()},${compose({ protocol: 'FTP' })}]` },
      'a batch with another source': { path: batch, body: `[${compose({ trafficSourceId: MISSING_ID })}]` },
      'a malformed batch': { path: batch, body: '[{' },
      'a large malformed batch': { path: batch, body: `[${compose()},${compose()},{` },
      'a batch for an unknown source': {
        path: `/http-traffic-record/${MISSING_ID}/batch`,
        body: `[${JSON.stringify(composeBody(MISSING_ID))}]`,
      },
      '/ingest-log with fields that are not JSON': {
        path: '/ingest-log',
        body: JSON.stringify({ ...composeBody(s.source.id), requestHeaders: '{' }),
      },
    };
    for (const [name, sent] of Object.entries(cases)) {
      const [viaDaemon, viaExpress] = [await send(s.daemon, s, sent), await send(s.express, s, sent)];
      expect(viaDaemon.status, name).toBeGreaterThanOrEqual(400);
      expect(viaDaemon, name).toEqual(viaExpress);
    }
  });
});

describe('a database that cannot serve, on the lean path', () => {
  it('is answered as Express answers it: 503, Retry-After and the same body, for a compose and a batch', async () => {
    const s = await threeServers();
    try {
      const outage = databaseOutage(s.deps.db);
      outage.fail(adminShutdown());
      const single = `/http-traffic-record/${s.source.id}`;
      const compose = JSON.stringify(composeBody(s.source.id));
      for (const sent of [
        { path: single, body: compose },
        { path: `${single}/batch`, body: `[${compose},${compose}]` },
      ]) {
        const [viaDaemon, viaExpress] = [await send(s.daemon, s, sent), await send(s.express, s, sent)];
        expect(viaDaemon.status, sent.path).toBe(503);
        expect(viaDaemon, sent.path).toEqual(viaExpress);
      }
      outage.heal();
      expect((await send(s.lean, s, { path: single, body: compose })).status).toBe(201);
    } finally {
      await s.close();
    }
  });
});

describe('a client that leaves early', () => {
  it('is let go: a stop does not wait for a request whose client left while its token was checked', async () => {
    const s = await threeServers();
    try {
      // Token checks wait until the client has gone, as they may on a busy PostgreSQL pool.
      let release = (): void => undefined;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const verify = s.deps.tokens.verify.bind(s.deps.tokens);
      s.deps.tokens.verify = async (token) => (await gate, verify(token));
      const { port } = new URL(s.lean);
      const socket = connect(Number(port), '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      const head = `POST /http-traffic-record/${s.source.id} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nauthorization: Bearer ${s.owner.token}\r\ncontent-length: 100\r\n\r\n`;
      socket.write(`${head}{"domainUrl":`);
      const closed = new Promise((resolve) => socket.once('close', resolve));
      socket.destroy();
      await closed;
      // The server hears of the close on its next turns; the request is then over for it.
      for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
      release();
      expect(await s.deps.inflight.drain(5_000)).toBe(true);
    } finally {
      await s.close();
    }
  });
});
