import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createClient } from '../client.js';
import { createRecorder, type DropEvent, type Recorder, type RecorderOptions, type Refusal } from './recorder.js';
import { resolveSourceId } from './source.js';
import type { RecordBody } from './transaction.js';

const SOURCE = '01a1fc8d-93a2-767e-92f3-e5a71388f88b';

const body = (i: number, method = 'GET'): RecordBody => ({
  domainUrl: 'http://app.local',
  pathnameUrl: `/r/${i}`,
  status: 200,
  protocol: 'HTTP',
  method,
  elapsedTime: 1,
  requestHeaders: {},
  requestBody: null,
  queryParams: {},
  responseHeaders: {},
  responseBody: null,
});

type Reply = 'down' | { status: number; body?: unknown };

/** A scripted daemon: each request gets the next reply of `script`, then `then`; stored batches are kept. */
function fakeDaemon(script: Reply[] = [], then: Reply = { status: 201 }) {
  const batches: { pathnameUrl: string; trafficSourceId: string }[][] = [];
  let n = 0;
  const fetchImpl = vi.fn(async (url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const reply = script.shift() ?? then;
    if (reply === 'down')
      throw new TypeError('fetch failed', { cause: Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }) });
    if (typeof init?.body !== 'string') throw new Error('the recorder sends its batch as JSON text');
    const sent = JSON.parse(init.body) as { pathnameUrl: string; trafficSourceId: string }[];
    expect(url instanceof Request ? url.url : url.toString()).toContain(`/http-traffic-record/${SOURCE}/batch`);
    if (reply.status === 201) {
      batches.push(sent);
      return new Response(JSON.stringify({ ids: sent.map(() => `id-${++n}`) }), { status: 201 });
    }
    return new Response(JSON.stringify(reply.body ?? { statusCode: reply.status, error: 'no' }), {
      status: reply.status,
    });
  });
  return { batches, fetchImpl, client: createClient({ baseUrl: 'http://daemon.test', token: 't', fetch: fetchImpl }) };
}

const fast = { flushIntervalMs: 5, retry: { initialMs: 5, maxMs: 20 } };

/** A client of `daemon` whose every answer takes `ms` (on vitest's fake timers where they are used). */
const slowClient = (daemon: ReturnType<typeof fakeDaemon>, ms: number) =>
  createClient({
    baseUrl: 'http://daemon.test',
    token: 't',
    fetch: async (url: string | URL | Request, init?: RequestInit) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return daemon.fetchImpl(url, init);
    },
  });

describe('createRecorder', () => {
  it('batches records in order, fills in the source and reports ids', async () => {
    const daemon = fakeDaemon();
    const recorder = createRecorder({ client: daemon.client, sourceId: SOURCE, batchSize: 4, ...fast });
    const ids: (string | null)[] = [];
    for (let i = 0; i < 10; i++) expect(recorder.record(body(i), (id) => ids.push(id))).toBe(true);
    expect(await recorder.flush()).toBe(true);
    const stored = daemon.batches.flat();
    expect(stored.map((r) => r.pathnameUrl)).toEqual(Array.from({ length: 10 }, (_, i) => `/r/${i}`));
    expect(stored.every((r) => r.trafficSourceId === SOURCE)).toBe(true);
    expect(Math.max(...daemon.batches.map((b) => b.length))).toBeLessThanOrEqual(4);
    expect(ids).toEqual(Array.from({ length: 10 }, (_, i) => `id-${i + 1}`));
    expect(recorder.stats()).toMatchObject({ sent: 10, queued: 0, dropped: 0 });
  });

  it('skips methods outside the spec five, and counts them', async () => {
    const daemon = fakeDaemon();
    const recorder = createRecorder({ client: daemon.client, sourceId: SOURCE, ...fast });
    expect(recorder.record(body(1, 'HEAD'))).toBe(false);
    expect(recorder.record(body(2, 'OPTIONS'))).toBe(false);
    expect(recorder.record(body(3, 'patch'))).toBe(true);
    await recorder.flush();
    expect(recorder.stats()).toMatchObject({ skipped: 2, sent: 1 });
  });

  it('retries with backoff while the daemon is down, without losing or reordering records', async () => {
    const daemon = fakeDaemon(['down', 'down', { status: 502 }, 'down']);
    const errors: Error[] = [];
    const recorder = createRecorder({
      client: daemon.client,
      sourceId: SOURCE,
      ...fast,
      onError: (e) => errors.push(e),
    });
    for (let i = 0; i < 5; i++) recorder.record(body(i));
    expect(await recorder.flush(2000)).toBe(true);
    expect(daemon.batches.flat().map((r) => r.pathnameUrl)).toEqual(['/r/0', '/r/1', '/r/2', '/r/3', '/r/4']);
    expect(recorder.stats()).toMatchObject({ sent: 5, failures: 4, dropped: 0 });
    expect(errors[0]?.name).toBe('UnreachableError');
  });

  it('drops and counts records past the bound, never throwing or waiting', async () => {
    const daemon = fakeDaemon([], 'down');
    const drops: DropEvent[] = [];
    const recorder = createRecorder({
      client: daemon.client,
      sourceId: SOURCE,
      maxQueue: 3,
      ...fast,
      onDrop: (e) => drops.push(e),
    });
    const started = performance.now();
    const accepted = Array.from({ length: 10 }, (_, i) => recorder.record(body(i)));
    expect(performance.now() - started).toBeLessThan(50);
    expect(accepted).toEqual([true, true, true, false, false, false, false, false, false, false]);
    expect(recorder.stats()).toMatchObject({ queued: 3, dropped: 7 });
    expect(drops.at(-1)).toMatchObject({ reason: 'queue-full', total: 7 });
    expect(await recorder.close(100)).toBe(false);
    expect(recorder.record(body(99))).toBe(false);
    expect(recorder.stats().dropped).toBe(8);
  });

  it('rejects only the items a 400 names, and sends the rest', async () => {
    const daemon = fakeDaemon([
      { status: 400, body: { statusCode: 400, error: 'bad', issues: [{ path: '1.status', message: 'x' }] } },
    ]);
    const results: (string | null)[] = [];
    const recorder = createRecorder({ client: daemon.client, sourceId: SOURCE, ...fast });
    for (let i = 0; i < 3; i++) recorder.record(body(i), (id) => results.push(id));
    await recorder.flush();
    expect(daemon.batches.flat().map((r) => r.pathnameUrl)).toEqual(['/r/0', '/r/2']);
    expect(results).toEqual([null, 'id-1', 'id-2']);
    expect(recorder.stats()).toMatchObject({ sent: 2, rejected: 1 });
  });

  it('splits a batch the daemon finds too large', async () => {
    const daemon = fakeDaemon([{ status: 413 }]);
    const recorder = createRecorder({ client: daemon.client, sourceId: SOURCE, ...fast });
    for (let i = 0; i < 6; i++) recorder.record(body(i));
    await recorder.flush();
    expect(daemon.batches.map((b) => b.length)).toEqual([3, 3]);
  });

  it('holds what arrives during a request for the interval, instead of a request for each trickle', async () => {
    vi.useFakeTimers();
    try {
      const daemon = fakeDaemon();
      // A daemon that takes 30 ms to answer, while a record arrives every 5 ms.
      const recorder = createRecorder({ client: slowClient(daemon, 30), sourceId: SOURCE, flushIntervalMs: 100 });
      const waited: number[] = [];
      for (let i = 0; i < 40; i++) {
        const at = Date.now();
        recorder.record(body(i), () => waited.push(Date.now() - at));
        await vi.advanceTimersByTimeAsync(5);
      }
      await vi.advanceTimersByTimeAsync(300);
      expect(daemon.batches.flat().map((r) => r.pathnameUrl)).toEqual(Array.from({ length: 40 }, (_, i) => `/r/${i}`));
      // Sent at 100 and 200 ms: a request each 100 ms, not one each time the last is answered.
      expect(daemon.batches.length).toBe(2);
      // No record waited longer than its interval and the request before it.
      expect(Math.max(...waited)).toBeLessThanOrEqual(100 + 30);
    } finally {
      vi.useRealTimers();
    }
  });

  it('sends what was queued before a request at once after it: a backlog, or the good records of a 400', async () => {
    vi.useFakeTimers();
    try {
      // A 400 naming the first record of the first request, then 201s; each answer takes 50 ms.
      const daemon = fakeDaemon([
        { status: 400, body: { statusCode: 400, error: 'bad', issues: [{ path: '0.status', message: 'x' }] } },
      ]);
      const recorder = createRecorder({
        client: slowClient(daemon, 50),
        sourceId: SOURCE,
        batchSize: 4,
        flushIntervalMs: 100,
      });
      const waited: number[] = [];
      const at = Date.now();
      for (let i = 0; i < 10; i++) recorder.record(body(i), (id) => id && waited.push(Date.now() - at));
      await vi.advanceTimersByTimeAsync(1_000);
      // The 400's three good records go again at once, then the backlog's rest: none waits for an
      // interval it has already spent in the queue.
      expect(daemon.batches.flat().map((r) => r.pathnameUrl)).toEqual(
        Array.from({ length: 9 }, (_, i) => `/r/${i + 1}`),
      );
      expect(Math.max(...waited)).toBeLessThanOrEqual(4 * 50);
    } finally {
      vi.useRealTimers();
    }
  });

  it('resolves the source lazily and retries the lookup', async () => {
    const daemon = fakeDaemon();
    let calls = 0;
    const recorder = createRecorder({
      client: daemon.client,
      ...fast,
      sourceId: async () => {
        if (++calls < 3) throw new Error('daemon not up yet');
        return SOURCE;
      },
    });
    recorder.record(body(1));
    expect(await recorder.flush(2000)).toBe(true);
    expect(calls).toBe(3);
    expect(recorder.stats().sent).toBe(1);
  });
});

const TOKEN = 'tl_test-token';

/** What the fake daemon does with one request: answer, reset the connection, or never answer. */
type LoopbackReply = { status: number; error?: string; headers?: Record<string, string> } | 'reset' | 'hang';

interface Seen {
  readonly method: string;
  readonly path: string;
  readonly at: number;
  readonly paths: string[];
}

/**
 * A daemon on loopback: each request to the batch endpoint gets the next reply of `script`, then
 * 201; the source list answers `sources`. Every request is kept, with the records a batch carried.
 */
async function loopbackDaemon(
  script: LoopbackReply[],
  sources: { id: string; name: string }[] = [{ id: SOURCE, name: 'shop' }],
  port = 0,
) {
  const requests: Seen[] = [];
  const stored: string[] = [];
  /** Runs when a batch has arrived, before it is answered: the batch is in flight. */
  const hooks: { onBatch?: () => void } = {};
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      const path = req.url ?? '';
      const paths =
        req.method === 'POST' ? (JSON.parse(text) as { pathnameUrl: string }[]).map((r) => r.pathnameUrl) : [];
      requests.push({ method: req.method ?? '', path, at: performance.now(), paths });
      if (req.method === 'POST') hooks.onBatch?.();
      const reply = path.startsWith('/traffic-source') ? { status: 200 } : (script.shift() ?? { status: 201 });
      if (reply === 'reset') return void req.socket.destroy();
      if (reply === 'hang') return;
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      if (path.startsWith('/traffic-source'))
        return void res.end(JSON.stringify({ data: sources, meta: { page: 1, limit: 1000, total: sources.length } }));
      if (reply.status !== 201)
        return void res.end(JSON.stringify({ statusCode: reply.status, error: reply.error ?? 'no' }));
      stored.push(...paths);
      res.end(
        JSON.stringify({
          ids: paths.map(
            (_, i) => `0190a000-0000-7000-8000-${String(stored.length - paths.length + i).padStart(12, '0')}`,
          ),
        }),
      );
    });
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const batches = () => requests.filter((r) => r.method === 'POST');
  return { url, server, requests, batches, stored, hooks };
}

async function closed(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

describe('the recorder against a daemon on loopback: what it retries and what it gives up (issue 24, problems 5 and 17)', () => {
  const servers: Server[] = [];
  const recorders: Recorder[] = [];
  afterEach(async () => {
    await Promise.all(recorders.splice(0).map((r) => r.close(10)));
    await Promise.all(servers.splice(0).map(closed));
  });

  function start(url: string, options: Partial<RecorderOptions> = {}) {
    const errors: Error[] = [];
    const refusals: Refusal[] = [];
    const recorder = createRecorder({
      client: createClient({ baseUrl: url, token: TOKEN }),
      sourceId: SOURCE,
      ...fast,
      onError: (e) => errors.push(e),
      onRefused: (r) => refusals.push(r),
      ...options,
    });
    recorders.push(recorder);
    return { recorder, errors, refusals };
  }

  it('retries a 503 for as long as it lasts, waiting at least its Retry-After, and loses nothing', async () => {
    const unavailable = { status: 503, error: 'The database is unavailable', headers: { 'retry-after': '1' } };
    const daemon = await loopbackDaemon([
      unavailable,
      { ...unavailable, headers: { 'retry-after': '0' } },
      { status: 503 },
      { status: 503 },
      { status: 503 },
      { status: 503 },
    ]);
    servers.push(daemon.server);
    const { recorder, errors, refusals } = start(daemon.url);
    recorder.record(body(1));
    expect(await recorder.flush(10_000)).toBe(true);
    expect(daemon.stored).toEqual(['/r/1']);
    expect(recorder.stats()).toMatchObject({ sent: 1, rejected: 0, dropped: 0, failures: 6 });
    expect(errors).toHaveLength(6);
    expect(refusals).toEqual([]);
    const [first, second] = daemon.batches();
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(900);
  });

  it('retries 502, 504, 408 and 429 the same way', async () => {
    const daemon = await loopbackDaemon([
      { status: 502 },
      { status: 504 },
      { status: 408 },
      { status: 429 },
      { status: 502 },
    ]);
    servers.push(daemon.server);
    const { recorder } = start(daemon.url);
    recorder.record(body(1));
    expect(await recorder.flush(5_000)).toBe(true);
    expect(recorder.stats()).toMatchObject({ sent: 1, rejected: 0, failures: 5 });
  });

  it('holds records while the connection is refused, and delivers them once the daemon listens', async () => {
    const probe = await loopbackDaemon([]);
    const { url } = probe;
    await closed(probe.server);
    const { recorder, errors } = start(url);
    for (let i = 0; i < 3; i++) recorder.record(body(i));
    await expect.poll(() => errors.length).toBeGreaterThanOrEqual(3);
    expect(errors[0]?.message).toContain('ECONNREFUSED');
    const daemon = await loopbackDaemon([], undefined, Number(new URL(url).port));
    servers.push(daemon.server);
    expect(await recorder.flush(5_000)).toBe(true);
    expect(daemon.stored).toEqual(['/r/0', '/r/1', '/r/2']);
    expect(recorder.stats()).toMatchObject({ sent: 3, dropped: 0, rejected: 0 });
  });

  it('retries a reset connection and a request that timed out', async () => {
    const daemon = await loopbackDaemon(['reset', 'hang']);
    servers.push(daemon.server);
    const { recorder, errors } = start(daemon.url, { requestTimeoutMs: 200 });
    recorder.record(body(1));
    expect(await recorder.flush(5_000)).toBe(true);
    expect(daemon.stored).toEqual(['/r/1']);
    expect(errors.map((e) => e.message)).toEqual([
      expect.stringMatching(/ECONNRESET|socket|other side closed/i),
      expect.stringMatching(/timed out/),
    ]);
  });

  it('gives up a batch answered 401 at once: no retry, one refusal naming the status and message, counted by reason', async () => {
    const daemon = await loopbackDaemon([
      { status: 401, error: 'Invalid token' },
      { status: 401, error: 'Invalid token' },
    ]);
    servers.push(daemon.server);
    const { recorder, errors, refusals } = start(daemon.url);
    recorder.record(body(1));
    recorder.record(body(2));
    expect(await recorder.flush(2_000)).toBe(true);
    recorder.record(body(3));
    expect(await recorder.flush(2_000)).toBe(true);
    expect(daemon.batches().map((b) => b.paths)).toEqual([['/r/1', '/r/2'], ['/r/3']]);
    expect(refusals).toEqual([{ status: 401, message: 'Invalid token', count: 2 }]);
    expect(errors).toEqual([]);
    expect(recorder.stats()).toMatchObject({
      sent: 0,
      failures: 0,
      rejected: 3,
      rejectedBy: { unauthorized: 3 },
      refusal: { status: 401, message: 'Invalid token' },
    });
  });

  it('gives up only the records a refused request carried, not those recorded while it was in flight', async () => {
    const daemon = await loopbackDaemon([
      { status: 401, error: 'Invalid token' },
      { status: 401, error: 'Invalid token' },
    ]);
    servers.push(daemon.server);
    const { recorder } = start(daemon.url);
    daemon.hooks.onBatch = () => {
      daemon.hooks.onBatch = undefined;
      recorder.record(body(2));
    };
    recorder.record(body(1));
    expect(await recorder.flush(2_000)).toBe(true);
    expect(daemon.batches().map((b) => b.paths)).toEqual([['/r/1'], ['/r/2']]);
    expect(recorder.stats()).toMatchObject({ rejected: 2, failures: 0 });
  });

  it('gives up a batch answered 403 or 404 without retrying, and says so again only after records were stored in between', async () => {
    const daemon = await loopbackDaemon([
      { status: 404, error: 'Traffic Source not found' },
      { status: 201 },
      { status: 403, error: 'This token may not write to that source' },
    ]);
    servers.push(daemon.server);
    const { recorder, refusals } = start(daemon.url);
    for (const i of [1, 2, 3]) {
      recorder.record(body(i));
      expect(await recorder.flush(2_000)).toBe(true);
    }
    expect(daemon.batches()).toHaveLength(3);
    expect(refusals.map((r) => r.status)).toEqual([404, 403]);
    expect(recorder.stats()).toMatchObject({
      sent: 1,
      failures: 0,
      rejected: 2,
      rejectedBy: { notFound: 1, forbidden: 1 },
    });
  });

  it('refuses once, without retrying, when no source of that name is visible to the token', async () => {
    const daemon = await loopbackDaemon([], [{ id: SOURCE, name: 'other' }]);
    servers.push(daemon.server);
    const client = createClient({ baseUrl: daemon.url, token: TOKEN });
    const { recorder, refusals, errors } = start(daemon.url, {
      client,
      sourceId: () => resolveSourceId(client, 'shop'),
    });
    recorder.record(body(1));
    expect(await recorder.flush(2_000)).toBe(true);
    recorder.record(body(2));
    expect(await recorder.flush(2_000)).toBe(true);
    expect(daemon.requests.map((r) => r.method)).toEqual(['GET', 'GET']);
    expect(refusals).toEqual([
      { status: 404, message: 'no traffic source named "shop" is visible to this token', count: 1 },
    ]);
    expect(errors).toEqual([]);
    expect(recorder.stats()).toMatchObject({ rejected: 2, rejectedBy: { notFound: 2 }, failures: 0 });
  });
});
