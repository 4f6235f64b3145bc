import { contract, type Endpoint } from '@tapline/shared';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildWorld,
  send,
  VALID_REQUESTS,
  type World,
  MISSING_ID,
  raw,
  type Harness,
  startHarness,
} from '@tapline/testkit/daemon';

/**
 * No input a client can send gets a 500: random JSON bodies, path parameters and query strings,
 * against every endpoint, as the owner of real resources so that requests reach the handlers.
 */
describe('no endpoint answers 500 to any input', () => {
  let h: Harness;
  let token: string;
  let world: World;
  // Revoking the one token the runs share would turn every later request into a 401.
  const endpoints = Object.entries(contract as Record<string, Endpoint>).filter(([name]) => name !== 'revokeOwnToken');

  beforeAll(async () => {
    h = await startHarness({ config: { allowPrivateWebhooks: true } });
    const user = await h.user();
    token = user.token;
    world = await buildWorld(user.client, { webhook: 'local' });
  });
  afterAll(() => h.close());

  const anyText = fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.string({ unit: 'binary', maxLength: 20 }),
    fc.constantFrom('', '%', '%zz', '..', '0', '-1', '1e999', 'null'),
  );
  const idLike = () =>
    fc.oneof(fc.constantFrom(world.sourceId, world.webhookId, world.entryId, world.domainId, MISSING_ID), anyText);
  const queryKeys = fc.constantFrom(
    'page',
    'limit',
    'startDate',
    'endDate',
    'domainId',
    'pathnameId',
    'method',
    'status',
    'level',
    'q',
    'after',
    'x',
  );
  const query = () =>
    fc.dictionary(
      queryKeys,
      fc.oneof(anyText, fc.constantFrom('1', '1000', '5xx', 'FATAL', 'get', '2026-01-01', world.domainId)),
      { maxKeys: 4 },
    );

  /** A valid body with one member replaced by any JSON value, or any JSON value at all. */
  const bodyFor = (name: string) =>
    fc.oneof(
      fc.jsonValue({ maxDepth: 4 }),
      fc.tuple(fc.string({ maxLength: 20 }), fc.jsonValue({ maxDepth: 3 })).map(([key, value]) => {
        const valid = VALID_REQUESTS[name]?.(world).body;
        const base: unknown = Array.isArray(valid) ? valid[0] : valid;
        if (base === null || typeof base !== 'object') return value;
        const keys = Object.keys(base);
        const target = keys.length > 0 && key.length % 2 === 0 ? (keys[key.length % keys.length] ?? key) : key;
        return { ...base, [target]: value };
      }),
    );

  it('random requests to every endpoint of the contract', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: endpoints.length - 1 }).chain((index) => {
          const [name, e] = endpoints[index] as [string, Endpoint];
          const names = [...e.path.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1] as string);
          return fc.record({
            name: fc.constant(name),
            params: fc
              .tuple(...names.map(() => idLike()))
              .map((values) => Object.fromEntries(names.map((n, i) => [n, values[i] === '' ? '-' : values[i]]))),
            query: query(),
            body: e.method === 'GET' ? fc.constant(undefined) : fc.option(bodyFor(name), { nil: undefined }),
          });
        }),
        async ({ name, params, query: q, body }) => {
          const e = (contract as Record<string, Endpoint>)[name] as Endpoint;
          const answer = await send(h, token, e, {
            params: params as Record<string, string>,
            query: q,
            ...(body !== undefined ? { body } : {}),
          });
          expect(
            answer.status,
            `${e.method} ${e.path} ${JSON.stringify({ params, q, body }).slice(0, 300)}: ${answer.text.slice(0, 200)}`,
          ).toBeLessThan(500);
        },
      ),
      { numRuns: 150 },
    );
  });

  // No `stream` segment: a stream that opens never ends, and `raw` reads whole bodies.
  it('random raw paths and methods', async () => {
    const method = fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE', 'PUT');
    const segment = fc.oneof(
      fc.constantFrom(
        'traffic-source',
        'core-log',
        'webhooks',
        'http-traffic',
        'http-traffic-record',
        'domains',
        'pathnames',
        'auth',
        'batch',
        'deliveries',
      ),
      idLike(),
    );
    await fc.assert(
      fc.asyncProperty(
        method,
        fc.array(segment, { minLength: 1, maxLength: 4 }),
        fc.string({ maxLength: 30 }),
        async (verb, segments, search) => {
          const path = `/${segments.map((s) => s.replace(/[?#]/g, '')).join('/')}?${search.replace(/#/g, '')}`;
          const answer = await raw(h, verb, path, {
            token,
            ...(verb === 'GET' ? {} : { body: '{}', headers: { 'content-type': 'application/json' } }),
          });
          expect(answer.status, `${verb} ${path}: ${answer.text.slice(0, 200)}`).toBeLessThan(500);
        },
      ),
      { numRuns: 100 },
    );
  });
});
