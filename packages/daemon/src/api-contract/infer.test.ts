import { contract, type TaplineClient } from '@tapline/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeBody, createSource, type Harness, rawJson, startHarness } from '@tapline/testkit/daemon';
import { openApiErrors } from '@tapline/testkit/openapi';

type Doc = {
  servers: { url: string }[];
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: { name: string; in: string; required: boolean; schema: object }[];
        requestBody?: { required: boolean; content: Record<string, { schema: object }> };
        responses: Record<
          string,
          { content?: Record<string, { schema: object; example?: unknown }>; 'x-tapline': { count: number } }
        >;
        security: object[];
        'x-tapline': { count: number; firstSeen: string; lastSeen: string };
      }
    >
  >;
  components?: { securitySchemes: object };
};

/** Issue 28, "Infer": GET /api-contract/:id/openapi over stored traffic. */
describe('the OpenAPI document inferred from stored traffic', () => {
  let h: Harness;
  let client: TaplineClient;
  let sourceId: string;
  let token: string;
  let doc: Doc;
  let text: string;

  beforeAll(async () => {
    h = await startHarness({ routeBackfill: { start: false } });
    const user = await h.user();
    client = user.client;
    token = user.token;
    sourceId = (await createSource(client)).id;
    const send = async (overrides: Record<string, unknown>) => {
      const answer = await rawJson(
        h,
        'POST',
        `/http-traffic-record/${sourceId}`,
        user.token,
        composeBody(sourceId, overrides),
      );
      expect(answer.status, answer.text).toBe(201);
    };
    const json = { 'content-type': 'application/json; charset=utf-8' };
    for (let i = 1; i <= 3; i++) {
      await send({
        method: 'GET',
        pathnameUrl: `/api/users/${i}`,
        requestHeaders: { authorization: 'Bearer secret-token-value', 'x-tenant': 'acme' },
        queryParams: i === 3 ? { expand: 'orders' } : {},
        responseHeaders: json,
        responseBody: {
          id: i,
          email: `u${i}@example.com`,
          createdAt: '2026-11-26T10:00:00Z',
          nickname: i === 2 ? null : 'x',
          ...(i === 1 ? { beta: true } : {}),
        },
      });
    }
    await send({
      method: 'GET',
      pathnameUrl: '/api/users/404',
      status: 404,
      responseHeaders: json,
      responseBody: { error: 'not found' },
    });
    await send({
      method: 'POST',
      pathnameUrl: '/api/users',
      status: 201,
      requestHeaders: json,
      requestBody: { email: 'n@example.com', tags: ['a'] },
      responseHeaders: json,
      responseBody: { id: 9 },
    });
    await send({
      method: 'GET',
      pathnameUrl: '/api/orders/019a4c2e-7b1d-7c3e-9f00-1234567890ab',
      responseHeaders: json,
      responseBody: [{ total: 12.5 }, { total: 3 }],
    });
    const answer = await client.request(contract.inferApiContract, { params: { trafficSourceId: sourceId } });
    text = answer.text;
    doc = answer.json as Doc;
  });
  afterAll(() => h.close());

  it('has no error in swagger-parser nor in redocly lint', async () => {
    expect(await openApiErrors(doc)).toEqual([]);
  });

  it('has one path per template, path parameters typed, one operation per method, a response per status', () => {
    expect(Object.keys(doc.paths)).toEqual(['/api/orders/{id}', '/api/users', '/api/users/{id}']);
    const get = doc.paths['/api/users/{id}']!.get!;
    expect(get.parameters).toEqual([
      { name: 'id', in: 'path', required: true, schema: { type: 'integer' } },
      { name: 'expand', in: 'query', required: false, schema: { type: 'string' } },
      // The 404 was sent without it.
      { name: 'x-tenant', in: 'header', required: false, schema: { type: 'string' } },
    ]);
    expect(doc.paths['/api/orders/{id}']!.get!.parameters![0]!.schema).toEqual({ type: 'string', format: 'uuid' });
    expect(Object.keys(get.responses)).toEqual(['200', '404']);
    expect(get['x-tapline']).toMatchObject({ count: 4 });
    expect(get.responses['200']!['x-tapline']).toEqual({ count: 3 });
  });

  it('merges every sample: required only where always present, null as a type, formats', () => {
    const media = doc.paths['/api/users/{id}']!.get!.responses['200']!.content!['application/json']!;
    expect(media.schema).toEqual({
      type: 'object',
      properties: {
        beta: { type: 'boolean' },
        createdAt: { type: 'string', format: 'date-time' },
        email: { type: 'string', format: 'email' },
        id: { type: 'integer' },
        nickname: { type: ['string', 'null'] },
      },
      required: ['createdAt', 'email', 'id', 'nickname'],
    });
    expect(media.example).toMatchObject({ id: 1 });
    const post = doc.paths['/api/users']!.post!;
    expect(post.requestBody).toMatchObject({
      required: true,
      content: { 'application/json': { schema: { required: ['email', 'tags'] } } },
    });
    expect(doc.paths['/api/orders/{id}']!.get!.responses['200']!.content!['application/json']!.schema).toEqual({
      type: 'array',
      items: { type: 'object', properties: { total: { type: 'number' } }, required: ['total'] },
    });
  });

  it('declares a bearer scheme where Authorization was sent, never its value, and servers from the domains', () => {
    expect(doc.components?.securitySchemes).toEqual({ bearerAuth: { type: 'http', scheme: 'bearer' } });
    expect(doc.paths['/api/users/{id}']!.get!.security).toEqual([{ bearerAuth: [] }, {}]);
    expect(doc.paths['/api/users']!.post!.security).toEqual([]);
    expect(text).not.toContain('secret-token-value');
    expect(doc.servers).toEqual([{ url: 'https://shop.example.com' }]);
  });

  it('is the same document byte for byte at every read, and keeps to the routes asked for', async () => {
    const again = await client.request(contract.inferApiContract, { params: { trafficSourceId: sourceId } });
    expect(again.text).toBe(text);
    const some = await client.call(contract.inferApiContract, {
      params: { trafficSourceId: sourceId },
      query: { route: ['/api/users', '/api/orders/:id'] },
    });
    expect(Object.keys(some.paths as object)).toEqual(['/api/orders/{id}', '/api/users']);
  });

  it('answers 400 naming since for a window that is no duration or time', async () => {
    const answer = await rawJson(h, 'GET', `/api-contract/${sourceId}/openapi?since=yesterday`, token);
    expect(answer.status).toBe(400);
    expect(answer.text).toContain('since');
  });
});
