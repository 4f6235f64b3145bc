import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSource, MISSING_ID, raw, type Harness, startHarness, type TestUser } from '@tapline/testkit/daemon';

/** One request written byte for byte, and everything the daemon answered until it closed. */
function rawExchange(url: string, request: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

describe('answers outside the routes keep the contract', () => {
  let h: Harness;
  let alice: TestUser;
  let sourceId: string;

  beforeAll(async () => {
    h = await startHarness();
    alice = await h.user();
    sourceId = (await createSource(alice.client)).id;
  });
  afterAll(() => h.close());

  it('a known path with a method it does not serve is a 405 with Allow and the JSON error', async () => {
    const put = await raw(h, 'PUT', '/traffic-source', { token: alice.token });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, HEAD, OPTIONS, POST');
    expect(put.json).toEqual({
      statusCode: 405,
      error: 'PUT is not allowed here; use GET, HEAD, OPTIONS, POST',
      code: 'method_not_allowed',
    });

    // GET/POST /webhooks/:trafficSourceId and DELETE /webhooks/:webhookId are one path to a client.
    const patch = await raw(h, 'PATCH', `/webhooks/${MISSING_ID}`);
    expect(patch.status).toBe(405);
    expect(patch.headers.get('allow')).toBe('DELETE, GET, HEAD, OPTIONS, POST');
    expect((await raw(h, 'POST', '/healthz')).headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });

  it('an unknown path is still a 404, and OPTIONS keeps its 200 with Allow', async () => {
    expect((await raw(h, 'PUT', '/nothing-here')).json).toMatchObject({ statusCode: 404, code: 'route_not_found' });
    const options = await raw(h, 'OPTIONS', '/traffic-source');
    expect(options.status).toBe(200);
    expect(options.headers.get('allow')).toContain('POST');
  });

  it('a q of the documented 4,000 characters fits, even when each percent-encodes to 9 bytes', async () => {
    const q = `path="${'€'.repeat(3993)}"`;
    expect(q.length).toBe(4000);
    const url = `/http-traffic/${sourceId}?${new URLSearchParams({ q, startDate: '2026-01-01', level: 'fatal' }).toString()}`;
    expect(url.length).toBeGreaterThan(36_000);
    const answer = await raw(h, 'GET', url, { token: alice.token });
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ data: [], meta: { total: 0 } });
  });

  it('headers beyond the limit get a 431 with the JSON error body', async () => {
    const answer = await raw(h, 'GET', '/healthz', { headers: { 'x-padding': 'a'.repeat(70 * 1024) } });
    expect(answer.status).toBe(431);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(answer.json).toEqual({
      statusCode: 431,
      error: 'Request line and headers exceed 64 KiB',
      code: 'headers_too_large',
    });
  });

  it('a request Node cannot parse gets a 400 with the JSON error body', async () => {
    const answer = await rawExchange(h.url, 'GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: nope\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({
      statusCode: 400,
      error: 'Bad Request: the HTTP request could not be parsed',
      code: 'bad_request',
    });
  });
});
