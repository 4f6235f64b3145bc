import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describeBinary, truncationMarker } from '@tapline/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, type SpawnedDaemon, startDaemon, tempHome } from './support/binaries.js';
import { compose, createSource } from './support/compose.js';

/**
 * `tapline traffic replay` and `traffic show --curl` (the built CLI) on records as the capture
 * clients store them: with the headers curl sends for a large upload, and with bodies Tapline kept
 * only as a placeholder (cut at `--max-body`, or binary).
 */

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

let home: ReturnType<typeof tempHome>;
let daemon: SpawnedDaemon;
let sourceId: string;
let target: { server: Server; url: string; seen: Seen[] };
const tapline = (...args: string[]) => cli(['--url', daemon.url, ...args], { home: home.path });

/** A JSON document of at least `bytes` bytes, as a large upload might carry. */
const largeDocument = (bytes: number) => {
  const items = Array.from({ length: Math.ceil(bytes / 48) }, (_, i) => ({
    sku: `SKU-${i}`,
    qty: i % 7,
    note: 'replayed whole',
  }));
  return { batch: 'b-1', items };
};

/** The headers curl 8 sends with `--data-binary @file` of 1 MB or more. */
const curlUploadHeaders = (length: number) => ({
  host: 'shop.example.com',
  'user-agent': 'curl/8.5.0',
  accept: '*/*',
  'content-type': 'application/json',
  'content-length': String(length),
  expect: '100-continue',
});

beforeAll(async () => {
  home = tempHome();
  // Records carrying a 1 MB body are larger than the default limit of a record (1 MiB).
  daemon = await startDaemon(home.path, ['--max-body', '4mb']);
  sourceId = await createSource(daemon.url, daemon.token, 'shop');
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"stored":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  target = { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
});

afterAll(async () => {
  target?.server.close();
  await daemon?.stop();
  home?.remove();
});

const SLOW = { timeout: 120_000 };

describe('tapline traffic replay of what capture clients record', SLOW, () => {
  it('replays a 1 MB body recorded with Expect: 100-continue, and it arrives whole', async () => {
    const document = largeDocument(1024 * 1024);
    const text = JSON.stringify(document);
    expect(text.length).toBeGreaterThanOrEqual(1024 * 1024);
    const { id } = await compose(daemon.url, daemon.token, sourceId, {
      domainUrl: target.url,
      protocol: 'HTTP',
      method: 'POST',
      pathnameUrl: '/upload',
      queryParams: {},
      requestHeaders: curlUploadHeaders(text.length),
      requestBody: document,
    });
    target.seen.length = 0;
    const replayed = await tapline('traffic', 'replay', 'shop', id);
    expect(replayed.stderr).toBe('');
    expect(replayed.exitCode).toBe(0);
    expect(replayed.stdout).toMatch(/^200 OK/m);
    expect(target.seen).toHaveLength(1);
    const [got] = target.seen;
    expect(got).toMatchObject({ method: 'POST', url: '/upload' });
    expect(got?.headers.expect).toBeUndefined();
    expect(got?.headers['user-agent']).toBe('curl/8.5.0');
    expect(got?.headers['content-length']).toBe(String(Buffer.byteLength(got?.body ?? '')));
    expect(JSON.parse(got?.body ?? 'null')).toEqual(document);
  });

  it('refuses a body kept only in part (cut at --max-body), naming it, until --data gives one', async () => {
    const kept = `{"items":[${'{"sku":"A-1","qty":2},'.repeat(3000)}`.slice(0, 65536);
    const marker = truncationMarker(65536, 1048576);
    const { id } = await compose(daemon.url, daemon.token, sourceId, {
      domainUrl: target.url,
      protocol: 'HTTP',
      method: 'PUT',
      pathnameUrl: '/cart',
      queryParams: {},
      requestHeaders: { 'content-type': 'application/json' },
      requestBody: kept + marker,
    });
    target.seen.length = 0;
    const refused = await tapline('traffic', 'replay', 'shop', id);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain(marker);
    expect(refused.stderr).toContain("--data '<the whole body as JSON>'");
    expect(refused.stdout).toBe('');
    expect(target.seen).toEqual([]);

    const given = await tapline('traffic', 'replay', 'shop', id, '--data', '{"items":[{"sku":"A-1","qty":3}]}');
    expect(given.exitCode, given.stderr).toBe(0);
    expect(target.seen.map((s): unknown[] => [s.method, s.url, JSON.parse(s.body)])).toEqual([
      ['PUT', '/cart', { items: [{ sku: 'A-1', qty: 3 }] }],
    ]);
  });

  it('refuses a binary body, which was never stored', async () => {
    const placeholder = describeBinary('image/png', 48213);
    const { id } = await compose(daemon.url, daemon.token, sourceId, {
      domainUrl: target.url,
      protocol: 'HTTP',
      method: 'POST',
      pathnameUrl: '/avatar',
      queryParams: {},
      requestHeaders: { 'content-type': 'image/png' },
      requestBody: placeholder,
    });
    target.seen.length = 0;
    const refused = await tapline('traffic', 'replay', 'shop', id);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain(placeholder);
    expect(target.seen).toEqual([]);
  });

  it('traffic show --curl prints the command, and warns on stderr that the body is a placeholder', async () => {
    const marker = truncationMarker(65536, 1048576);
    const { id } = await compose(daemon.url, daemon.token, sourceId, {
      domainUrl: target.url,
      protocol: 'HTTP',
      method: 'POST',
      pathnameUrl: '/notes',
      queryParams: {},
      requestHeaders: { 'content-type': 'text/plain', expect: '100-continue' },
      requestBody: `${'note '.repeat(20)}${marker}`,
    });
    const curl = await tapline('traffic', 'show', 'shop', id, '--curl');
    expect(curl.exitCode, curl.stderr).toBe(0);
    expect(curl.stdout).toMatch(/^curl -X POST http:\/\/127\.0\.0\.1:\d+\/notes/);
    expect(curl.stdout).not.toMatch(/expect/i);
    expect(curl.stderr).toMatch(/^tapline: warning: .*body.*placeholder/m);
    expect(curl.stderr).toContain(marker);
  });
});
