import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, createRecorder, postJson, type RecordBody, UnreachableError } from '@tapline/shared';
import { createThreadSender, type ThreadSender } from './sender.js';

const TOKEN = 'tl_test_token';
const SOURCE = '01a1fc8d-93a2-767e-92f3-e5a71388f88b';

interface Received {
  readonly method: string;
  readonly url: string;
  readonly authorization: string | undefined;
  readonly contentType: string | undefined;
  readonly body: string;
}

/** A daemon that keeps every request's bytes; `/hang` never answers, `/busy` asks to come back later. */
function fakeDaemon(): { server: http.Server; received: Received[] } {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      const { authorization } = req.headers;
      received.push({
        method: req.method ?? '',
        url: req.url ?? '',
        authorization,
        contentType: req.headers['content-type'],
        body,
      });
      if (req.url?.endsWith('/hang')) return;
      if (req.url?.endsWith('/busy'))
        return res
          .writeHead(503, { 'retry-after': '2', 'content-type': 'application/json' })
          .end('{"message":"later"}');
      const n = req.url?.endsWith('/batch') ? (JSON.parse(body) as unknown[]).length : 0;
      res
        .writeHead(201, { 'content-type': 'application/json' })
        .end(JSON.stringify({ ids: Array.from({ length: n }, (_, i) => `id-${i}`) }));
    });
  });
  return { server, received };
}

const listening = (server: http.Server) =>
  new Promise<string>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );

/** What a POST gives: the answer, or the error's class and message. */
const outcome = (sent: Promise<unknown>) =>
  sent.then(
    (answer) => ({ answer }),
    (error: Error) => ({ error: error.constructor.name, message: error.message }),
  );

const record = (i: number): RecordBody => ({
  domainUrl: 'http://app.local',
  pathnameUrl: `/r/${i}`,
  status: 200,
  protocol: 'HTTP',
  method: 'POST',
  elapsedTime: 1.5,
  requestHeaders: { 'content-type': 'application/json', 'x-é': 'ü' },
  responseHeaders: {},
  requestBody: { text: 'é\u2028"\\', n: i },
  queryParams: { q: String(i) },
  responseBody: null,
  startedAt: new Date(1_764_300_000_000 + i).toISOString(),
});

describe('the proxy sending thread', () => {
  let folder: string;
  let worker: URL;
  const daemon = fakeDaemon();
  let url: string;
  let sender: ThreadSender;

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'tapline-sender-'));
    // A worker thread cannot load TypeScript: the thread bundled as the build does.
    await build({
      entryPoints: [fileURLToPath(new URL('./send-thread.ts', import.meta.url))],
      outfile: join(folder, 'proxy-sender.js'),
      bundle: true,
      platform: 'node',
      format: 'esm',
      logLevel: 'error',
    });
    worker = pathToFileURL(join(folder, 'proxy-sender.js'));
    url = await listening(daemon.server);
    sender = createThreadSender(worker, createClient({ baseUrl: url }), TOKEN);
  });
  afterAll(async () => {
    await sender.close();
    daemon.server.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('posts with the token and gives back the answer as the daemon sent it', async () => {
    const answer = await sender.post('/x/busy', '{"a":"é"}', 2_000);
    expect(answer).toEqual({ status: 503, text: '{"message":"later"}', retryAfter: '2' });
    expect(daemon.received.at(-1)).toEqual({
      method: 'POST',
      url: '/x/busy',
      authorization: `Bearer ${TOKEN}`,
      contentType: 'application/json',
      body: '{"a":"é"}',
    });
  });

  it('fails as this thread would when no daemon answers, or none in time', async () => {
    const closed = http.createServer();
    const nobody = await listening(closed);
    await new Promise((resolve) => closed.close(resolve));
    const away = createThreadSender(worker, createClient({ baseUrl: nobody }), TOKEN);
    const here = createClient({ baseUrl: nobody, token: TOKEN });
    expect(await outcome(away.post('/x', '{}', 2_000))).toEqual(await outcome(postJson(here, '/x', '{}', 2_000)));
    expect(await outcome(away.post('/x', '{}', 2_000))).toMatchObject({ error: 'UnreachableError' });
    await away.close();
    const late = await outcome(sender.post('/x/hang', '{}', 100));
    expect(late).toEqual({
      error: 'UnreachableError',
      message: new UnreachableError(url, 'timed out after 100 ms').message,
    });
  });

  it('sends what the recorder sends on its own thread, byte for byte', async () => {
    const bodies = async (post?: ThreadSender['post']) => {
      const from = daemon.received.length;
      const recorder = createRecorder({
        client: createClient({ baseUrl: url, token: TOKEN }),
        sourceId: SOURCE,
        batchSize: 7,
        ...(post ? { post } : {}),
      });
      for (let i = 0; i < 20; i++) recorder.record(record(i));
      expect(await recorder.close(5_000)).toBe(true);
      expect(recorder.stats()).toMatchObject({ sent: 20, queued: 0, dropped: 0, rejected: 0 });
      return daemon.received.slice(from);
    };
    const threaded = await bodies(sender.post);
    expect(threaded).toHaveLength(3);
    expect(threaded).toEqual(await bodies());
  });

  it('posts on this thread once the thread is gone, and fails what it had out so that it is retried', async () => {
    const missing = createThreadSender(pathToFileURL(join(folder, 'none.js')), createClient({ baseUrl: url }), TOKEN);
    const first = await outcome(missing.post('/x/ok', '{}', 2_000));
    // Whether the thread's failure came before the POST or after it, nothing is lost: either an
    // answer, or an UnreachableError, which the recorder retries.
    expect([201, 'UnreachableError']).toContain(
      'answer' in first ? (first.answer as { status: number }).status : first.error,
    );
    expect(await missing.post('/x/ok', '{}', 2_000)).toMatchObject({ status: 201 });
    await missing.close();
  });
});
