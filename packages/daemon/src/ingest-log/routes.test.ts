import type { HttpTrafficRecord } from '@tapline/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  composeBody,
  createSource,
  type Harness,
  MISSING_ID,
  raw,
  rawJson,
  startHarness,
} from '@tapline/testkit/daemon';

/** The body `@arkyn/server` 3.0.1-beta.139 sent for `api.post('/users/:id', …)`, as captured on a loopback server. */
function arkynBody(trafficSourceId: string, overrides: Record<string, unknown> = {}) {
  return {
    domainUrl: 'http://127.0.0.1:37773',
    pathnameUrl: '/users/:id',
    trafficSourceId,
    status: 201,
    protocol: 'http',
    method: 'post',
    trafficUserId: null,
    elapsedTime: 248.96684600000003,
    requestHeaders: '{"Authorization":"Bearer abc","Content-Type":"application/json"}',
    requestBody: '{"name":"Bob","password":"p"}',
    queryParams: '{"id":"42"}',
    responseHeaders: '{"connection":"keep-alive","content-type":"application/json","set-cookie":"sid=1"}',
    responseBody: '{"id":7}',
    ...overrides,
  };
}

describe('POST /ingest-log', () => {
  let h: Harness;
  let token: string;
  let sourceId: string;
  beforeEach(async () => {
    h = await startHarness({ config: { maxBody: 4096 } });
    const user = await h.user();
    token = user.token;
    sourceId = (await createSource(user.client)).id;
  });
  afterEach(() => h.close());

  const post = (body: unknown, auth = token) => rawJson(h, 'POST', '/ingest-log', auth, body);

  it('decodes the JSON-encoded fields, then composes exactly as compose does: 201, redacted, upper case', async () => {
    const answer = await post(arkynBody(sourceId));
    expect(answer.status, answer.text).toBe(201);
    const record = answer.json as HttpTrafficRecord;
    expect(record).toMatchObject({
      status: 201,
      method: 'POST',
      protocol: 'HTTP',
      level: 'INFO',
      domain: '127.0.0.1:37773',
      pathname: '/users/:id',
      trafficSourceId: sourceId,
      request: {
        headers: { Authorization: '[REDACTED]', 'Content-Type': 'application/json' },
        body: { name: 'Bob', password: '[REDACTED]' },
        queryParams: { id: '42' },
      },
      response: { headers: { 'set-cookie': '[REDACTED]' }, body: { id: 7 } },
    });
    expect(record).not.toHaveProperty('trafficUserId');
    expect((await rawJson(h, 'GET', `/http-traffic/${sourceId}/${record.id}`, token)).json).toEqual(record);
  });

  it('"null" bodies are null, and plain objects are accepted as well as strings', async () => {
    const nulls = await post(arkynBody(sourceId, { requestBody: 'null', responseBody: 'null' }));
    expect(nulls.json).toMatchObject({ request: { body: null }, response: { body: null } });
    const objects = await post(
      arkynBody(sourceId, { requestHeaders: { accept: '*/*' }, queryParams: {}, requestBody: { a: 1 } }),
    );
    expect(objects.status, objects.text).toBe(201);
    expect(objects.json).toMatchObject({ request: { headers: { accept: '*/*' }, body: { a: 1 } } });
  });

  it('400 naming the field: a string that does not parse, a map that is not an object, and every compose rule', async () => {
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ requestHeaders: '{not json' }, 'requestHeaders', 'requestHeaders must be a JSON-encoded object'],
      [{ queryParams: '[1,2]' }, 'queryParams', 'queryParams must be a JSON-encoded object'],
      [{ responseHeaders: 'null' }, 'responseHeaders', 'responseHeaders must be a JSON-encoded object'],
      [{ responseBody: '{"a":' }, 'responseBody', 'responseBody must be a JSON-encoded value'],
      [{ method: 'trace' }, 'method', 'method must be one of GET, POST, PUT, DELETE, PATCH'],
      [{ trafficSourceId: 'nope' }, 'trafficSourceId', 'trafficSourceId must be a valid UUID'],
      [{ startedAt: '2999-01-01T00:00:00Z' }, 'startedAt', 'startedAt must not be more than 5 minutes in the future'],
    ];
    for (const [overrides, path, message] of cases) {
      const answer = await post(arkynBody(sourceId, overrides));
      expect(answer.status, answer.text).toBe(400);
      expect((answer.json as { issues: unknown[] }).issues, answer.text).toContainEqual({ path, message });
    }
    const missing: Record<string, unknown> = arkynBody(sourceId);
    delete missing.queryParams;
    expect((await post(missing)).json).toMatchObject({ issues: [{ path: 'queryParams', message: 'is required' }] });
  });

  it('the same authentication, scopes, source restriction, size and content-type rules as compose', async () => {
    expect((await post(arkynBody(sourceId), '')).status).toBe(400);
    expect((await post(arkynBody(sourceId), 'not-a-token')).status).toBe(401);
    expect((await post(arkynBody(MISSING_ID))).json).toMatchObject({ statusCode: 404, code: 'source_not_found' });
    const owner = await h.user('owner@example.com');
    const theirs = (await createSource(owner.client)).id;
    expect((await post(arkynBody(theirs))).status).toBe(403);
    const ownerId = owner.id;
    const read = await h.deps.tokens.issue({ userId: ownerId, scope: 'read', sourceId: null, expiresAt: null });
    expect((await post(arkynBody(theirs), read.token)).status).toBe(403);
    const other = (await createSource(owner.client)).id;
    const restricted = await h.deps.tokens.issue({
      userId: ownerId,
      scope: 'ingest',
      sourceId: other,
      expiresAt: null,
    });
    expect((await post(arkynBody(theirs), restricted.token)).status).toBe(403);
    expect((await post(arkynBody(other), restricted.token)).status).toBe(201);
    expect((await post(arkynBody(sourceId, { responseBody: JSON.stringify({ big: 'x'.repeat(5000) }) }))).status).toBe(
      413,
    );
    const text = await raw(h, 'POST', '/ingest-log', {
      token,
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify(arkynBody(sourceId)),
    });
    expect(text.status).toBe(415);
  });

  it('leaves the compose route as the interface document has it: JSON-encoded maps are a 400 there', async () => {
    const answer = await rawJson(h, 'POST', `/http-traffic-record/${sourceId}`, token, {
      ...composeBody(sourceId),
      requestHeaders: '{"accept":"*/*"}',
    });
    expect(answer.status).toBe(400);
    expect((answer.json as { issues: { path: string }[] }).issues.map((i) => i.path)).toContain('requestHeaders');
  });
});
