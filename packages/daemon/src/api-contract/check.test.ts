import { type ApiCheckAnswer, contract, type TaplineClient } from '@tapline/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeBody, createSource, type Harness, rawJson, startHarness } from '@tapline/testkit/daemon';

/** An OpenAPI 3.0 spec with shared schemas, parameters and a server base path, as real ones have. */
const SPEC = {
  openapi: '3.0.3',
  info: { title: 'shop', version: '1' },
  servers: [{ url: 'https://shop.example.com/api' }],
  paths: {
    '/pets/{petId}': {
      parameters: [{ name: 'petId', in: 'path', required: true, schema: { type: 'integer' } }],
      get: {
        parameters: [
          { $ref: '#/components/parameters/Verbose' },
          { name: 'x-tenant', in: 'header', required: true, schema: { type: 'string' } },
        ],
        responses: {
          '200': {
            description: 'ok',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } },
          },
          '4XX': {
            description: 'error',
            content: { 'application/json': { schema: { type: 'object', required: ['error'] } } },
          },
        },
      },
    },
    '/pets': {
      post: {
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/NewPet' } } },
        },
        responses: { '201': { description: 'created' } },
      },
    },
  },
  components: {
    parameters: { Verbose: { name: 'verbose', in: 'query', schema: { type: 'boolean' } } },
    schemas: {
      Pet: {
        type: 'object',
        required: ['id', 'name'],
        properties: {
          id: { type: 'integer' },
          name: { type: 'string' },
          tag: { type: 'string', nullable: true },
          born: { type: 'string', format: 'date' },
        },
      },
      NewPet: { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1 } } },
    },
  },
};

/** Issue 28, "Check": POST /api-contract/:id/check over stored traffic, one fixture per kind of violation. */
describe('stored exchanges checked against a spec', () => {
  let h: Harness;
  let client: TaplineClient;
  let token: string;
  let sourceId: string;
  const ids: Record<string, string> = {};

  const json = { 'content-type': 'application/json' };
  const pet = (overrides: Record<string, unknown>) => ({
    method: 'GET',
    pathnameUrl: '/api/pets/1',
    requestHeaders: { 'x-tenant': 'acme' },
    responseHeaders: json,
    responseBody: { id: 1, name: 'rex', tag: null, born: '2020-01-02' },
    ...overrides,
  });
  const FIXTURES: Record<string, Record<string, unknown>> = {
    good: pet({ queryParams: { verbose: 'true' } }),
    good404: pet({ status: 404, pathnameUrl: '/api/pets/2', responseBody: { error: 'no such pet' } }),
    goodPost: {
      method: 'POST',
      pathnameUrl: '/api/pets',
      status: 201,
      requestHeaders: json,
      requestBody: { name: 'tom' },
      responseBody: null,
    },
    missingProperty: pet({ responseBody: { id: 1 } }),
    wrongType: pet({ responseBody: { id: 'one', name: 'rex' } }),
    wrongFormat: pet({ responseBody: { id: 1, name: 'rex', born: 'yesterday' } }),
    undocumentedStatus: pet({ status: 500, responseBody: { error: 'boom' } }),
    undocumentedPath: pet({ pathnameUrl: '/api/owners/1' }),
    undocumentedMethod: pet({ method: 'DELETE' }),
    badQuery: pet({ queryParams: { verbose: 'very' } }),
    missingHeader: pet({ requestHeaders: {} }),
    badRequestBody: {
      method: 'POST',
      pathnameUrl: '/api/pets',
      status: 201,
      requestHeaders: json,
      requestBody: { name: '' },
      responseBody: null,
    },
    missingRequestBody: {
      method: 'POST',
      pathnameUrl: '/api/pets',
      status: 201,
      requestBody: null,
      responseBody: null,
    },
  };

  beforeAll(async () => {
    h = await startHarness({ routeBackfill: { start: false } });
    const user = await h.user();
    client = user.client;
    token = user.token;
    sourceId = (await createSource(client)).id;
    for (const [name, overrides] of Object.entries(FIXTURES)) {
      const answer = await rawJson(
        h,
        'POST',
        `/http-traffic-record/${sourceId}`,
        token,
        composeBody(sourceId, overrides),
      );
      expect(answer.status, answer.text).toBe(201);
      ids[name] = (answer.json as { id: string }).id;
    }
  });
  afterAll(() => h.close());

  const check = (spec: object, extra: Record<string, unknown> = {}) =>
    rawJson(h, 'POST', `/api-contract/${sourceId}/check`, token, { spec, ...extra });

  it('reports each kind of violation with its JSON pointer, rule and the entry to open', async () => {
    const answer = await check(SPEC);
    expect(answer.status, answer.text).toBe(200);
    const report = answer.json as ApiCheckAnswer;
    const brief = report.violations.map((v) => [v.kind, v.status, v.pointer, v.rule, v.examples]);
    expect(brief).toEqual(
      expect.arrayContaining([
        ['response-body', 200, '/name', 'required', [ids.missingProperty]],
        ['response-body', 200, '/id', 'type', [ids.wrongType]],
        ['response-body', 200, '/born', 'format', [ids.wrongFormat]],
        ['undocumented-status', 500, '', 'undocumented-status', [ids.undocumentedStatus]],
        ['undocumented-path', 200, '', 'undocumented-path', [ids.undocumentedPath]],
        ['undocumented-method', 200, '', 'undocumented-method', [ids.undocumentedMethod]],
        ['query', 200, '/verbose', 'type', [ids.badQuery]],
        ['header', 200, '/x-tenant', 'required', [ids.missingHeader]],
        ['request-body', 201, '/name', 'minLength', [ids.badRequestBody]],
        ['request-body', 201, '', 'required', [ids.missingRequestBody]],
      ]),
    );
    expect(report.violations).toHaveLength(10);
    expect(report.exchanges).toBe(Object.keys(FIXTURES).length);
    expect(report.conforming).toBe(3);
    expect(report.operations).toEqual([
      { method: 'POST', path: '/pets', exchanges: 3, conforming: 1 },
      { method: 'GET', path: '/pets/{petId}', exchanges: 8, conforming: 2 },
    ]);
  });

  it('passes every exchange of a spec they all conform to (OpenAPI 3.1, null as a type)', async () => {
    const spec = {
      ...SPEC,
      openapi: '3.1.0',
      paths: {
        '/api/pets/{id}': {
          get: {
            responses: {
              default: {
                description: 'any',
                content: { 'application/json': { schema: { type: ['object', 'null'] } } },
              },
            },
          },
        },
      },
    };
    const answer = await check(spec, { route: ['/api/pets/{id}'] });
    expect(answer.status, answer.text).toBe(200);
    const report = answer.json as ApiCheckAnswer;
    expect(report.violations.filter((v) => v.kind !== 'undocumented-method')).toEqual([]);
    expect(report.exchanges).toBe(9);
  });

  it('keeps at most maxExamples ids of a violation', async () => {
    const report = await client.call(contract.checkApiContract, {
      params: { trafficSourceId: sourceId },
      body: { spec: { ...SPEC, paths: {} }, maxExamples: 2 },
    });
    expect(new Set(report.violations.map((v) => v.kind))).toEqual(new Set(['undocumented-path']));
    expect(report.violations.reduce((n, v) => n + v.count, 0)).toBe(13);
    const most = report.violations[0]!;
    expect([most.path, most.method, most.status, most.count]).toEqual(['/api/pets/{id}', 'GET', 200, 6]);
    expect(most.examples).toEqual([ids.good, ids.missingProperty]);
  });

  it('checks path parameters against their schemas, with the value coerced as a query value is', async () => {
    const other = (await createSource(client)).id;
    const entries: Record<string, string> = {};
    for (const [name, pathnameUrl] of Object.entries({
      named: '/api/pets/rex',
      numbered: '/api/pets/7',
      encoded: '/api/pets/%F0%9F%90%B6',
    })) {
      const answer = await rawJson(
        h,
        'POST',
        `/http-traffic-record/${other}`,
        token,
        composeBody(other, pet({ pathnameUrl })),
      );
      expect(answer.status, answer.text).toBe(201);
      entries[name] = (answer.json as { id: string }).id;
    }
    const answer = await rawJson(h, 'POST', `/api-contract/${other}/check`, token, { spec: SPEC });
    expect(answer.status, answer.text).toBe(200);
    const report = answer.json as ApiCheckAnswer;
    expect(report.violations.map((v) => [v.kind, v.path, v.pointer, v.rule, v.count, v.examples])).toEqual([
      ['path', '/pets/{petId}', '/petId', 'type', 2, [entries.named, entries.encoded]],
    ]);
    expect(report.violations[0]?.message).toBe('must be integer');
    expect([report.exchanges, report.conforming]).toEqual([3, 1]);
  });

  it('answers 400 naming spec for what is not OpenAPI 3.x or a schema that does not compile', async () => {
    for (const spec of [
      { swagger: '2.0', paths: {} },
      {
        ...SPEC,
        components: { ...SPEC.components, schemas: { ...SPEC.components.schemas, Pet: { type: 'no-such-type' } } },
      },
    ]) {
      const answer = await check(spec);
      expect(answer.status, answer.text).toBe(400);
      expect(answer.json).toMatchObject({ issues: [expect.objectContaining({ path: 'spec' })] });
    }
  });
});
