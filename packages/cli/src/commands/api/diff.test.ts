import { describe, expect, it } from 'vitest';
import { diffDocuments } from './diff.js';

type Op = Record<string, unknown>;
const doc = (paths: Record<string, Record<string, Op>>) => ({
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  paths,
});
type OpenApiDocument = ReturnType<typeof doc>;
const json = (schema: object) => ({ content: { 'application/json': { schema } } });
const ok = (schema: object) => ({ responses: { '200': { description: 'ok', ...json(schema) } } });
const user = (properties: object, required: string[] = []) => ({ type: 'object', properties, required });

/** One pair of documents per rule; what a client of the old document can no longer rely on is breaking. */
describe('api diff: changes between two OpenAPI documents, breaking or not (issue 28, "Diff")', () => {
  const brief = (before: OpenApiDocument, after: OpenApiDocument) =>
    diffDocuments(before, after).map((c) => [c.operation, c.where, c.change, c.breaking]);

  it('a removed operation breaks; an added one does not; a renamed path parameter is no change', () => {
    const a = doc({ '/users/{id}': { get: ok({}), delete: ok({}) } });
    const b = doc({ '/users/{userId}': { get: ok({}) }, '/orders': { get: ok({}) } });
    expect(brief(a, b)).toEqual([
      ['GET /orders', '', 'operation added', false],
      ['DELETE /users/{id}', '', 'operation removed', true],
    ]);
  });

  it('response properties: removed or made optional breaks; added does not', () => {
    const a = doc({ '/u': { get: ok(user({ id: { type: 'integer' }, name: { type: 'string' } }, ['id', 'name'])) } });
    const b = doc({ '/u': { get: ok(user({ id: { type: 'integer' }, email: { type: 'string' } }, ['email'])) } });
    expect(brief(a, b)).toEqual([
      ['GET /u', 'response 200 body /email', 'property added, required', false],
      ['GET /u', 'response 200 body /id', 'property became optional', true],
      ['GET /u', 'response 200 body /name', 'property removed', true],
    ]);
  });

  it('request properties: newly required breaks; removed or optional added does not', () => {
    const body = (schema: object) => ({
      requestBody: { required: true, ...json(schema) },
      responses: { '201': { description: 'created' } },
    });
    const a = doc({ '/u': { post: body(user({ name: { type: 'string' }, nick: { type: 'string' } })) } });
    const b = doc({
      '/u': {
        post: body(
          user({ name: { type: 'string' }, email: { type: 'string' }, age: { type: 'integer' } }, ['name', 'email']),
        ),
      },
    });
    expect(brief(a, b)).toEqual([
      ['POST /u', 'request body /age', 'property added', false],
      ['POST /u', 'request body /email', 'property added, required', true],
      ['POST /u', 'request body /name', 'property became required', true],
      ['POST /u', 'request body /nick', 'property removed', false],
    ]);
  });

  it('types: a narrowed request type breaks, a widened response type breaks (null included), the other ways do not', () => {
    const both = (req: object, res: object) => ({ requestBody: json(user({ v: req })), ...ok(user({ v: res })) });
    const a = doc({
      '/x': { put: both({ type: ['string', 'integer'] }, { type: 'integer' }) },
      '/y': { put: both({ type: 'integer' }, { type: ['integer', 'null'] }) },
    });
    const b = doc({
      '/x': { put: both({ type: 'string' }, { type: ['integer', 'null'] }) },
      '/y': { put: both({ type: 'number' }, { type: 'integer' }) },
    });
    expect(brief(a, b)).toEqual([
      ['PUT /x', 'request body /v', 'type integer|string → string', true],
      ['PUT /x', 'response 200 body /v', 'type integer → integer|null', true],
      ['PUT /y', 'request body /v', 'type integer → number', false],
      ['PUT /y', 'response 200 body /v', 'type integer|null → integer', false],
    ]);
  });

  it('parameters and statuses: a new required parameter and a removed success status break', () => {
    const a = doc({
      '/x': {
        get: {
          parameters: [
            { name: 'q', in: 'query', schema: { type: 'string' } },
            { name: 'old', in: 'query', schema: {} },
          ],
          responses: { '200': { description: 'ok' }, '404': { description: 'no' } },
        },
      },
    });
    const b = doc({
      '/x': {
        get: {
          parameters: [
            { name: 'q', in: 'query', required: true, schema: { type: 'string' } },
            { name: 'X-Key', in: 'header', required: true, schema: {} },
          ],
          responses: { '204': { description: 'none' } },
        },
      },
    });
    expect(brief(a, b)).toEqual([
      ['GET /x', 'header x-key', 'parameter added, required', true],
      ['GET /x', 'query old', 'parameter removed', false],
      ['GET /x', 'query q', 'parameter became required', true],
      ['GET /x', 'response 200', 'response status removed', true],
      ['GET /x', 'response 204', 'response status added', false],
      ['GET /x', 'response 404', 'response status removed', false],
    ]);
  });

  it('walks arrays of objects and allOf, and ends on a cyclic (dereferenced) schema', () => {
    const node: Record<string, unknown> = { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] };
    (node.properties as Record<string, unknown>).children = { type: 'array', items: node };
    const other: Record<string, unknown> = {
      type: 'object',
      allOf: [{ properties: { id: { type: 'string' } } }],
      required: ['id'],
    };
    (other.allOf as Record<string, Record<string, unknown>>[])[0]!.properties!.children = {
      type: 'array',
      items: other,
    };
    expect(brief(doc({ '/t': { get: ok(node) } }), doc({ '/t': { get: ok(other) } }))).toEqual([
      ['GET /t', 'response 200 body /id', 'type integer → string', true],
    ]);
  });
});
