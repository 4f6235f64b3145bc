import { ApiError, contract, type HttpTrafficRecord } from '@tapline/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createSource,
  expectError,
  manualClock,
  MISSING_ID,
  raw,
  rawJson,
  composeBody,
  type Harness,
  startHarness,
} from '@tapline/testkit/daemon';
import { recordRows } from '../http-traffic/repo.js';

describe('POST /http-traffic-record/:trafficSourceId', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(() => h.close());

  it('composes a record: level from status, domain from the URL, secrets redacted', async () => {
    const { client } = await h.user();
    const source = await client.call(contract.createTrafficSource, {
      body: { name: 'shop', trafficDomain: 'shop.example.com' },
    });
    const record = await client.call(contract.composeRecord, {
      params: { trafficSourceId: source.id },
      body: composeBody(source.id, {
        domainUrl: 'https://Shop.Example.com:443/ignored',
        status: 503,
        method: 'post',
        protocol: 'https',
        requestHeaders: { Authorization: 'Bearer abc', accept: 'json' },
        requestBody: { user: { password: 'hunter2' }, items: [{ apiKey: 'k' }] },
        queryParams: { access_token: 't', page: 2 },
      }),
    });
    expect(record).toMatchObject({
      status: 503,
      level: 'FATAL',
      method: 'POST',
      protocol: 'HTTPS',
      domain: 'shop.example.com',
      pathname: '/api/orders',
      request: {
        headers: { Authorization: '[REDACTED]', accept: 'json' },
        body: { user: { password: '[REDACTED]' }, items: [{ apiKey: '[REDACTED]' }] },
        queryParams: { access_token: '[REDACTED]', page: '2' },
      },
    });
    expect(record.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('answers 400 with the field path when the body and path disagree on the source', async () => {
    const { client } = await h.user();
    const source = await client.call(contract.createTrafficSource, {
      body: { name: 'a', trafficDomain: 'a.example.com' },
    });
    const other = '01a1fc8d-93a2-767e-92f3-e5a71388f88b';
    const error = await client
      .call(contract.composeRecord, { params: { trafficSourceId: source.id }, body: composeBody(other) })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(400);
    expect((error as ApiError).body.issues?.[0]?.path).toBe('trafficSourceId');
  });
});

describe('compose: every rule of the table', () => {
  let h: Harness;
  let token: string;
  let sourceId: string;
  const clock = manualClock('2026-05-05T05:05:05.555Z');
  beforeEach(async () => {
    clock.set('2026-05-05T05:05:05.555Z');
    h = await startHarness({ clock });
    const user = await h.user();
    token = user.token;
    sourceId = (await createSource(user.client)).id;
  });
  afterEach(() => h.close());

  const post = (body: unknown) => rawJson(h, 'POST', `/http-traffic-record/${sourceId}`, token, body);
  async function accepted(overrides: Record<string, unknown>) {
    const answer = await post(composeBody(sourceId, overrides));
    expect(answer.status, answer.text).toBe(201);
    return answer.json as HttpTrafficRecord & Record<string, unknown>;
  }
  async function rejected(body: unknown, path: string) {
    const answer = await post(body);
    expect(answer.status, `${JSON.stringify(body).slice(0, 200)} -> ${answer.text}`).toBe(400);
    const issues = (answer.json as { issues?: { path: string }[] }).issues ?? [];
    expect(
      issues.map((i) => i.path),
      answer.text,
    ).toContain(path);
  }

  it('answers 201 with exactly the record fields, createdAt from the daemon clock', async () => {
    const record = await accepted({});
    expect(Object.keys(record).sort()).toEqual(
      [
        'createdAt',
        'domain',
        'elapsedTime',
        'id',
        'level',
        'method',
        'pathname',
        'protocol',
        'request',
        'response',
        'route',
        'status',
        'trafficSourceId',
      ].sort(),
    );
    expect(record).toMatchObject({
      status: 200,
      method: 'GET',
      level: 'INFO',
      elapsedTime: 12.5,
      createdAt: '2026-05-05T05:05:05.555Z',
      domain: 'shop.example.com',
      pathname: '/api/orders',
      protocol: 'HTTPS',
      trafficSourceId: sourceId,
      request: { headers: { accept: 'application/json' }, body: null, queryParams: {} },
      response: { headers: { 'content-type': 'application/json' }, body: { ok: true } },
    });
    expect(record).not.toHaveProperty('trafficUserId');
  });

  for (const field of [
    'domainUrl',
    'pathnameUrl',
    'trafficSourceId',
    'status',
    'protocol',
    'method',
    'elapsedTime',
    'requestHeaders',
    'queryParams',
    'responseHeaders',
  ]) {
    it(`400 when the required field ${field} is missing`, async () => {
      const body: Record<string, unknown> = composeBody(sourceId);
      delete body[field];
      await rejected(body, field);
    });
  }

  it('accepts the optional fields left out, as null, or given', async () => {
    const body: Record<string, unknown> = composeBody(sourceId);
    delete body.requestBody;
    delete body.responseBody;
    const bare = await post(body);
    expect(bare.status).toBe(201);
    expect(bare.json).toMatchObject({ request: { body: null }, response: { body: null } });
    expect(bare.json).not.toHaveProperty('trafficUserId');
    const nulls = await accepted({ trafficUserId: null, requestBody: null, responseBody: null });
    expect(nulls).not.toHaveProperty('trafficUserId');
    const userId = '0191c6f4-55e5-7b6e-8c1a-3f0d2c1b4a59';
    expect((await accepted({ trafficUserId: userId })).trafficUserId).toBe(userId);
  });

  it('domainUrl must be a valid http(s) URL', async () => {
    for (const domainUrl of [
      'not a url',
      'shop.example.com',
      '',
      'http://',
      42,
      null,
      'ftp://shop.example.com',
      'javascript:alert(1)',
    ]) {
      await rejected(composeBody(sourceId, { domainUrl }), 'domainUrl');
    }
    expect((await accepted({ domainUrl: 'http://localhost:3000' })).domain).toBe('localhost:3000');
  });

  it('domain is the lower-case host, with the port only when it is not the scheme default', async () => {
    const cases: Array<[string, string]> = [
      ['https://Shop.Example.com', 'shop.example.com'],
      ['https://shop.example.com:443/any/path?q=1', 'shop.example.com'],
      ['http://shop.example.com:80', 'shop.example.com'],
      ['http://shop.example.com:8080', 'shop.example.com:8080'],
      ['https://shop.example.com:80', 'shop.example.com:80'],
      ['http://shop.example.com:443', 'shop.example.com:443'],
      ['http://[::1]:8080', '[::1]:8080'],
      ['http://127.0.0.1', '127.0.0.1'],
    ];
    for (const [domainUrl, domain] of cases) expect((await accepted({ domainUrl })).domain, domainUrl).toBe(domain);
  });

  it('finds or creates domains and pathnames per source; the pathname is kept exactly as submitted', async () => {
    await accepted({ domainUrl: 'https://a.example.com', pathnameUrl: '/x' });
    await accepted({ domainUrl: 'https://A.example.com:443', pathnameUrl: '/x' });
    await accepted({ domainUrl: 'https://a.example.com', pathnameUrl: '/X' });
    await accepted({ domainUrl: 'https://b.example.com', pathnameUrl: '/x' });
    const weird = await accepted({ pathnameUrl: '/a b/%20?q=1#frag' });
    expect(weird.pathname).toBe('/a b/%20?q=1#frag');
    const { data } = (await rawJson(h, 'GET', `/http-traffic/${sourceId}?limit=100`, token)).json as {
      data: Array<{ domainId: string; pathnameId: string; domain: string; pathname: string }>;
    };
    const [b, upper, again, first] = data.slice(1);
    expect(again?.domainId).toBe(first?.domainId);
    expect(again?.pathnameId).toBe(first?.pathnameId);
    expect(upper?.domainId).toBe(first?.domainId);
    expect(upper?.pathnameId).not.toBe(first?.pathnameId);
    expect(b?.domainId).not.toBe(first?.domainId);
    expect(b?.pathnameId).not.toBe(first?.pathnameId);
    const domains = (await rawJson(h, 'GET', `/domains/${sourceId}`, token)).json as { meta: { total: number } };
    expect(domains.meta.total).toBe(3);
  });

  it('gives every record a request id and a response id of its own, the same at every read', async () => {
    const one = await accepted({});
    const two = await accepted({});
    type Listed = { data: Array<{ id: string; requestId: string; responseId: string }> };
    const list = async () =>
      ((await rawJson(h, 'GET', `/http-traffic/${sourceId}?limit=100`, token)).json as Listed).data.filter(
        (e) => e.id === one.id || e.id === two.id,
      );
    const listed = await list();
    expect(listed).toHaveLength(2);
    expect(new Set(listed.flatMap((e) => [e.id, e.requestId, e.responseId])).size).toBe(6);
    expect(await list()).toEqual(listed);
  });

  it('pathnameUrl must be a string that begins with /', async () => {
    for (const pathnameUrl of ['api/orders', '', 'https://x.com/a', 5, null, ['/a']])
      await rejected(composeBody(sourceId, { pathnameUrl }), 'pathnameUrl');
    expect((await accepted({ pathnameUrl: '/' })).pathname).toBe('/');
  });

  it('trafficSourceId must be a valid UUID equal to the path', async () => {
    for (const trafficSourceId of ['nope', 42, '', MISSING_ID])
      await rejected(composeBody(sourceId, { trafficSourceId }), 'trafficSourceId');
    const answer = await rawJson(h, 'POST', '/http-traffic-record/not-a-uuid', token, composeBody(sourceId));
    expect(answer.status).toBe(400);
    expect((answer.json as { error: string }).error).toBe('trafficSourceId must be a valid UUID');
  });

  it('status must be an integer from 100 to 599', async () => {
    for (const status of [99, 600, 0, -200, 200.5, '200', null, true, 1e21])
      await rejected(composeBody(sourceId, { status }), 'status');
    for (const status of [100, 599]) expect((await accepted({ status })).status).toBe(status);
  });

  it('status and elapsedTime that JSON makes infinite are refused', async () => {
    for (const [field, from, to] of [
      ['status', '"status":200', '"status":1e999'],
      ['elapsedTime', '"elapsedTime":12.5', '"elapsedTime":1e999'],
    ] as const) {
      const body = JSON.stringify(composeBody(sourceId)).replace(from, to);
      const answer = await raw(h, 'POST', `/http-traffic-record/${sourceId}`, {
        token,
        body,
        headers: { 'content-type': 'application/json' },
      });
      expect(answer.status).toBe(400);
      expect((answer.json as { issues: { path: string }[] }).issues.map((i) => i.path)).toContain(field);
    }
  });

  it('the level rule: 5xx FATAL, 4xx WARNING, anything else INFO, at every boundary', async () => {
    const expected: Array<[number, string]> = [
      [100, 'INFO'],
      [200, 'INFO'],
      [302, 'INFO'],
      [399, 'INFO'],
      [400, 'WARNING'],
      [404, 'WARNING'],
      [499, 'WARNING'],
      [500, 'FATAL'],
      [503, 'FATAL'],
      [599, 'FATAL'],
    ];
    for (const [status, level] of expected) expect((await accepted({ status })).level, String(status)).toBe(level);
  });

  it('protocol is HTTP or HTTPS in any case, stored upper case', async () => {
    for (const protocol of ['FTP', 'ws', '', 'HTTP/1.1', 1, null])
      await rejected(composeBody(sourceId, { protocol }), 'protocol');
    for (const [given, stored] of [
      ['http', 'HTTP'],
      ['Https', 'HTTPS'],
      ['HTTP', 'HTTP'],
    ])
      expect((await accepted({ protocol: given })).protocol).toBe(stored);
  });

  it('method is one of GET, POST, PUT, DELETE, PATCH in any case, stored upper case', async () => {
    for (const method of ['HEAD', 'OPTIONS', 'TRACE', 'CONNECT', 'get ', '', 7, null])
      await rejected(composeBody(sourceId, { method }), 'method');
    for (const method of ['GET', 'POST', 'PUT', 'DELETE', 'PATCH']) {
      expect((await accepted({ method })).method).toBe(method);
      expect((await accepted({ method: method.toLowerCase() })).method).toBe(method);
    }
  });

  it('trafficUserId must be a valid UUID when given', async () => {
    for (const trafficUserId of ['user-1', 42, '', {}])
      await rejected(composeBody(sourceId, { trafficUserId }), 'trafficUserId');
  });

  it('elapsedTime is a non-negative number of milliseconds', async () => {
    for (const elapsedTime of [-1, -0.001, '5', null, {}])
      await rejected(composeBody(sourceId, { elapsedTime }), 'elapsedTime');
    expect((await accepted({ elapsedTime: 0 })).elapsedTime).toBe(0);
    expect((await accepted({ elapsedTime: 1234.567 })).elapsedTime).toBe(1234.567);
  });

  it('headers and query parameters are objects of strings or string arrays; numbers and booleans become strings', async () => {
    for (const field of ['requestHeaders', 'queryParams', 'responseHeaders']) {
      for (const value of ['text', ['a'], null, 5]) await rejected(composeBody(sourceId, { [field]: value }), field);
      for (const inner of [{ nested: 'x' }, null, [{ a: 1 }], [['x']], [null]])
        await rejected(composeBody(sourceId, { [field]: { k: inner } }), `${field}.k`);
    }
    const record = await accepted({
      requestHeaders: { 'x-count': 3, 'x-flag': true, 'x-list': ['a', 2, false], accept: 'text/html' },
      queryParams: { page: 2, all: true, tag: ['a', 'b'], empty: '' },
      responseHeaders: { 'content-length': 123, vary: ['accept', 'origin'] },
    });
    expect(record.request.headers).toEqual({
      'x-count': '3',
      'x-flag': 'true',
      'x-list': ['a', '2', 'false'],
      accept: 'text/html',
    });
    expect(record.request.queryParams).toEqual({ page: '2', all: 'true', tag: ['a', 'b'], empty: '' });
    expect(record.response.headers).toEqual({ 'content-length': '123', vary: ['accept', 'origin'] });
  });

  it('bodies: an object or null, and as an extension any other JSON value returned as given', async () => {
    const values = [{ a: { b: [1, 2] } }, null, [1, 'two', { three: 3 }], 'plain text', 42, 0, false, true, '', []];
    for (const value of values) {
      const record = await accepted({ requestBody: value, responseBody: value });
      expect(record.request.body, JSON.stringify(value)).toEqual(value);
      expect(record.response.body).toEqual(value);
      const stored = (await rawJson(h, 'GET', `/http-traffic/${sourceId}/${record.id}`, token))
        .json as HttpTrafficRecord;
      expect(stored.request.body).toEqual(value);
      expect(stored.response.body).toEqual(value);
    }
  });

  it('a body that is not a JSON object is a 400', async () => {
    for (const body of [[], [composeBody(sourceId)], 'text', 42, null, true]) {
      const answer = await post(body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
    }
    const empty = await raw(h, 'POST', `/http-traffic-record/${sourceId}`, { token });
    expect(empty.status).toBe(400);
  });

  it('documents 404 for a missing source, after validation', async () => {
    await expectError(
      h.anonymous.call(contract.composeRecord, {
        params: { trafficSourceId: MISSING_ID },
        body: composeBody(MISSING_ID),
      }),
      400,
      'Authentication token missing',
    );
    const missing = await rawJson(h, 'POST', `/http-traffic-record/${MISSING_ID}`, token, composeBody(MISSING_ID));
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({ statusCode: 404, error: 'Traffic Source not found', code: 'source_not_found' });
    const invalidAndMissing = await rawJson(
      h,
      'POST',
      `/http-traffic-record/${MISSING_ID}`,
      token,
      composeBody(MISSING_ID, { status: 'x' }),
    );
    expect(invalidAndMissing.status).toBe(400);
  });
});

describe('compose: secret redaction before storage', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  async function composeWith(config: Parameters<typeof startHarness>[0], overrides: Record<string, unknown>) {
    h = await startHarness(config);
    const user = await h.user();
    const source = await createSource(user.client);
    const answer = await rawJson(
      h,
      'POST',
      `/http-traffic-record/${source.id}`,
      user.token,
      composeBody(source.id, overrides),
    );
    expect(answer.status, answer.text).toBe(201);
    const record = answer.json as HttpTrafficRecord;
    const stored = (await rawJson(h, 'GET', `/http-traffic/${source.id}/${record.id}`, user.token))
      .json as HttpTrafficRecord;
    const rows = [
      // The stored exchange as the database reads it back (compressed on SQLite: a secret must not hide in the blob).
      ...(await recordRows(h.deps).execute()).map((r) => JSON.stringify(r)),
    ].join('\n');
    return { record, stored, rows };
  }

  const secrets = {
    requestHeaders: {
      Authorization: 'Bearer s3cr3t-a',
      'PROXY-AUTHORIZATION': 'Basic s3cr3t-b',
      Cookie: 's3cr3t-c=1',
      'X-Api-Key': 's3cr3t-d',
      'x-auth-token': 's3cr3t-e',
      accept: 'application/json',
    },
    responseHeaders: { 'Set-Cookie': ['s3cr3t-f=1', 's3cr3t-g=2'], 'content-type': 'application/json' },
    queryParams: { access_token: 's3cr3t-h', API_KEY: 's3cr3t-i', q: 'shoes' },
    requestBody: {
      user: { name: 'ann', Password: 's3cr3t-j', passwd: 's3cr3t-k' },
      items: [{ apiKey: 's3cr3t-l', 'api-key': 's3cr3t-m', api_key: 's3cr3t-n', qty: 1 }],
      deep: {
        a: {
          b: {
            c: {
              clientSecret: 's3cr3t-o',
              sessionId: 's3cr3t-p',
              authorization: 's3cr3t-q',
              refreshToken: { nested: 's3cr3t-r' },
            },
          },
        },
      },
    },
    responseBody: { token: 's3cr3t-s', data: [{ session: 's3cr3t-t', id: 7 }] },
  };

  it('replaces the values of secret headers and of secret keys at any depth with "[REDACTED]"', async () => {
    const { record, stored, rows } = await composeWith({}, secrets);
    for (const shown of [record, stored]) {
      expect(shown.request.headers).toEqual({
        Authorization: '[REDACTED]',
        'PROXY-AUTHORIZATION': '[REDACTED]',
        Cookie: '[REDACTED]',
        'X-Api-Key': '[REDACTED]',
        'x-auth-token': '[REDACTED]',
        accept: 'application/json',
      });
      expect(shown.response.headers).toEqual({
        'Set-Cookie': ['[REDACTED]', '[REDACTED]'],
        'content-type': 'application/json',
      });
      expect(shown.request.queryParams).toEqual({ access_token: '[REDACTED]', API_KEY: '[REDACTED]', q: 'shoes' });
      expect(shown.request.body).toEqual({
        user: { name: 'ann', Password: '[REDACTED]', passwd: '[REDACTED]' },
        items: [{ apiKey: '[REDACTED]', 'api-key': '[REDACTED]', api_key: '[REDACTED]', qty: 1 }],
        deep: {
          a: {
            b: {
              c: {
                clientSecret: '[REDACTED]',
                sessionId: '[REDACTED]',
                authorization: '[REDACTED]',
                refreshToken: '[REDACTED]',
              },
            },
          },
        },
      });
      expect(shown.response.body).toEqual({ token: '[REDACTED]', data: [{ session: '[REDACTED]', id: 7 }] });
    }
    expect(rows).not.toMatch(/s3cr3t/);
  });

  it('--redact-keys adds names for headers and keys', async () => {
    const { record, rows } = await composeWith(
      { config: { redact: { enabled: true, extraKeys: ['X-Tenant', 'ssn'] } } },
      {
        requestHeaders: { 'x-tenant': 'acme-s3cr3t', accept: 'a' },
        requestBody: { person: { SSN: '123-s3cr3t' }, other: 1 },
        queryParams: { ssn: 's3cr3t' },
      },
    );
    expect(record.request.headers).toEqual({ 'x-tenant': '[REDACTED]', accept: 'a' });
    expect(record.request.body).toEqual({ person: { SSN: '[REDACTED]' }, other: 1 });
    expect(record.request.queryParams).toEqual({ ssn: '[REDACTED]' });
    expect(rows).not.toMatch(/s3cr3t/);
  });

  it('--no-redact stores everything as sent', async () => {
    const { record, stored } = await composeWith({ config: { redact: { enabled: false, extraKeys: [] } } }, secrets);
    for (const shown of [record, stored]) {
      expect(shown.request.headers).toEqual(secrets.requestHeaders);
      expect(shown.request.body).toEqual(secrets.requestBody);
      expect(shown.response.body).toEqual(secrets.responseBody);
      expect(shown.request.queryParams).toEqual(secrets.queryParams);
    }
  });
});
