import { describe, expect, it, vi } from 'vitest';
import { createClient } from '../client.js';
import { createRecorder, type DropEvent } from './recorder.js';
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
    if (reply === 'down') throw new TypeError('fetch failed', { cause: Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }) });
    if (typeof init?.body !== 'string') throw new Error('the recorder sends its batch as JSON text');
    const sent = JSON.parse(init.body) as { pathnameUrl: string; trafficSourceId: string }[];
    expect(url instanceof Request ? url.url : url.toString()).toContain(`/http-traffic-record/${SOURCE}/batch`);
    if (reply.status === 201) {
      batches.push(sent);
      return new Response(JSON.stringify({ ids: sent.map(() => `id-${++n}`) }), { status: 201 });
    }
    return new Response(JSON.stringify(reply.body ?? { statusCode: reply.status, error: 'no' }), { status: reply.status });
  });
  return { batches, fetchImpl, client: createClient({ baseUrl: 'http://daemon.test', token: 't', fetch: fetchImpl }) };
}

const fast = { flushIntervalMs: 5, retry: { initialMs: 5, maxMs: 20 } };

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
    const recorder = createRecorder({ client: daemon.client, sourceId: SOURCE, ...fast, onError: (e) => errors.push(e) });
    for (let i = 0; i < 5; i++) recorder.record(body(i));
    expect(await recorder.flush(2000)).toBe(true);
    expect(daemon.batches.flat().map((r) => r.pathnameUrl)).toEqual(['/r/0', '/r/1', '/r/2', '/r/3', '/r/4']);
    expect(recorder.stats()).toMatchObject({ sent: 5, failures: 4, dropped: 0 });
    expect(errors[0]?.name).toBe('UnreachableError');
  });

  it('drops and counts records past the bound, never throwing or waiting', async () => {
    const daemon = fakeDaemon([], 'down');
    const drops: DropEvent[] = [];
    const recorder = createRecorder({ client: daemon.client, sourceId: SOURCE, maxQueue: 3, ...fast, onDrop: (e) => drops.push(e) });
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
    const daemon = fakeDaemon([{ status: 400, body: { statusCode: 400, error: 'bad', issues: [{ path: '1.status', message: 'x' }] } }]);
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
