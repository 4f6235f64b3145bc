import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { truncationMarker } from '@tapline/shared';
import { composeBody, startHarness, type Harness, type TestUser } from '@tapline/testkit/daemon';
import { EXIT } from '../exit-codes.js';
import { run } from '@tapline/testkit/cli';

/** A target that records each request it gets and answers 201 with JSON. */
interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

let h: Harness;
let ana: TestUser;
let target: { server: Server; url: string; seen: Seen[] };
const tapline = (...argv: string[]) => run(['--url', h.url, '--token', ana.token, ...argv]);
const compose = async (over: Record<string, unknown>) => {
  const { trafficSourceId: _, ...body } = composeBody('x', over);
  return (
    await run(['--url', h.url, '--token', ana.token, 'record', 'shop', '--json'], { input: JSON.stringify(body) })
  ).json<{ id: string }>().id;
};

beforeAll(async () => {
  h = await startHarness();
  ana = await h.user();
  await tapline('sources', 'add', 'shop', 'shop.example.com');
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      res
        .writeHead(201, { 'content-type': 'application/json', 'x-served-by': 'target' })
        .end(JSON.stringify({ replayed: true, items: [{ price: 3 }] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  target = { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
});
afterAll(async () => {
  target.server.close();
  await h.close();
});

describe('tapline traffic replay', () => {
  it('sends the recorded request to its origin and prints the new answer', async () => {
    const id = await compose({
      domainUrl: target.url,
      protocol: 'HTTP',
      method: 'PUT',
      pathnameUrl: '/api/orders/7',
      status: 503,
      elapsedTime: 40,
      requestHeaders: {
        'content-type': 'application/json',
        'x-trace': 'abc',
        connection: 'keep-alive',
        'content-length': '999',
      },
      queryParams: { q: 'a b', tag: ['x', 'y'] },
      requestBody: { sku: 'a1', qty: 2 },
    });
    target.seen.length = 0;
    const result = await tapline('traffic', 'replay', 'shop', id.slice(0, 13));
    expect(result.code, result.stderr).toBe(EXIT.OK);
    const [got] = target.seen;
    expect(got).toMatchObject({ method: 'PUT', url: '/api/orders/7?q=a+b&tag=x&tag=y' });
    expect(got?.headers).toMatchObject({ 'content-type': 'application/json', 'x-trace': 'abc' });
    expect(got?.headers['content-length']).toBe(String(got?.body.length));
    expect(JSON.parse(got?.body ?? '')).toEqual({ sku: 'a1', qty: 2 });
    expect(result.stdout).toMatch(
      new RegExp(
        `^PUT ${target.url}/api/orders/7\\?q=a\\+b&tag=x&tag=y\\n201 Created {2}\\S+ {2}\\(recorded: 503 in 40ms\\)\\n`,
      ),
    );
    expect(result.stdout).toContain('x-served-by: target');
    expect(result.stdout).toContain('"replayed": true');

    const json = (await tapline('traffic', 'replay', 'shop', id, '--json')).json<{
      request: { url: string };
      response: { status: number; body: unknown };
      recorded: { id: string; status: number };
    }>();
    expect(json.response).toMatchObject({ status: 201, body: { replayed: true, items: [{ price: 3 }] } });
    expect(json.recorded).toMatchObject({ id, status: 503 });
  });

  it('refuses to send redacted values, naming each, until each is given', async () => {
    const id = await compose({
      domainUrl: target.url,
      protocol: 'HTTP',
      method: 'POST',
      requestHeaders: { authorization: 'Bearer real-secret', 'x-api-key': 'k', accept: 'application/json' },
      queryParams: { token: 't0', page: '2' },
      requestBody: { user: { name: 'ana', password: 'p' } },
    });
    target.seen.length = 0;
    const refused = await tapline('traffic', 'replay', 'shop', id);
    expect(refused.code).toBe(EXIT.USAGE);
    expect(refused.stderr).toMatch(/4 redacted values/);
    for (const place of ['header authorization', 'header x-api-key', 'query token', 'body user.password'])
      expect(refused.stderr).toContain(place);
    expect(target.seen).toEqual([]);

    const partly = await tapline(
      'traffic',
      'replay',
      'shop',
      id,
      '--set-header',
      'Authorization: Bearer dev',
      '--set-query',
      'token=t1',
      '--data',
      '{"user":{"name":"ana","password":"dev"}}',
    );
    expect(partly.code).toBe(EXIT.USAGE);
    expect(partly.stderr).toMatch(/1 redacted value,.*\n {2}header x-api-key/);
    expect(target.seen).toEqual([]);

    const sent = await tapline(
      'traffic',
      'replay',
      'shop',
      id,
      '--set-header',
      'Authorization: Bearer dev',
      '--set-header',
      'x-api-key: k2',
      '--set-query',
      'token=t1',
      '--data',
      '{"user":{"name":"ana","password":"dev"}}',
    );
    expect(sent.code, sent.stderr).toBe(EXIT.OK);
    const [got] = target.seen;
    expect(JSON.stringify(got)).not.toContain('REDACTED');
    expect(got?.headers).toMatchObject({
      authorization: 'Bearer dev',
      'x-api-key': 'k2',
      accept: 'application/json',
      'content-type': 'application/json',
    });
    expect(got?.url).toBe('/api/orders?page=2&token=t1');
    expect(JSON.parse(got?.body ?? '')).toEqual({ user: { name: 'ana', password: 'dev' } });
  });

  it('refuses a placeholder body in the same rule as redacted values, one line for the body', async () => {
    const id = await compose({
      domainUrl: target.url,
      protocol: 'HTTP',
      method: 'POST',
      requestHeaders: { authorization: 'Bearer real-secret', 'content-type': 'application/json' },
      requestBody: `{"user":{"password":"p"},"items":[${truncationMarker(65536, 900000)}`,
    });
    target.seen.length = 0;
    const refused = await tapline('traffic', 'replay', 'shop', id);
    expect(refused.code).toBe(EXIT.USAGE);
    expect(refused.stderr).toContain(
      '1 redacted value and a body Tapline did not keep whole, and neither is ever sent; give each:',
    );
    expect(refused.stderr).toContain("header authorization: --set-header 'authorization: <value>'");
    expect(refused.stderr).toContain(
      `body, recorded only as "${truncationMarker(65536, 900000)}": --data '<the whole body as JSON>'`,
    );
    expect(refused.stderr.match(/--data/g)).toHaveLength(1);
    expect((await tapline('traffic', 'replay', 'shop', id, '--data', '{"items":[]}')).code).toBe(EXIT.USAGE);
    expect(target.seen).toEqual([]);
    const sent = await tapline(
      'traffic',
      'replay',
      'shop',
      id,
      '--data',
      '{"items":[]}',
      '--set-header',
      'authorization: Bearer dev',
    );
    expect(sent.code, sent.stderr).toBe(EXIT.OK);
    expect(target.seen.map((s) => s.body)).toEqual(['{"items":[]}']);
  });

  it('sends elsewhere with --to, keeping the path and query', async () => {
    const id = await compose({ pathnameUrl: '/api/cart', queryParams: { page: '1' } });
    target.seen.length = 0;
    const result = await tapline('traffic', 'replay', 'shop', id, '--to', `${target.url}/staging/`);
    expect(result.code, result.stderr).toBe(EXIT.OK);
    expect(target.seen.map((s) => `${s.method} ${s.url}`)).toEqual(['GET /staging/api/cart?page=1']);
  });

  it('says so when the target cannot be reached, and refuses bad flags', async () => {
    const id = await compose({});
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const down = await tapline('traffic', 'replay', 'shop', id, '--to', `http://127.0.0.1:${port}`);
    expect(down.code).toBe(EXIT.UNEXPECTED);
    expect(down.stderr).toContain(`cannot replay to http://127.0.0.1:${port} (ECONNREFUSED)`);
    expect((await tapline('traffic', 'replay', 'shop', id, '--to', 'ftp://x')).code).toBe(EXIT.USAGE);
    expect((await tapline('traffic', 'replay', 'shop', id, '--set-header', 'novalue')).code).toBe(EXIT.USAGE);
    expect((await tapline('traffic', 'replay', 'shop', id, '--data', '{oops')).code).toBe(EXIT.USAGE);
  });
});
