import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contract } from '../contract.js';
import { parseComposeBatchFast, parseComposeFast } from './compose-fast.js';
import { ComposeRecord } from './http-traffic.js';

const SOURCE = '01a1fc8d-93a2-767e-92f3-e5a71388f88b';
const ordinary = {
  domainUrl: 'https://shop.example.com',
  pathnameUrl: '/api/v1/orders',
  trafficSourceId: SOURCE,
  status: 201,
  protocol: 'https',
  method: 'post',
  elapsedTime: 12.5,
  requestHeaders: { 'content-type': 'application/json', authorization: 'Bearer x' },
  requestBody: { items: [1, 2], password: 'p' },
  queryParams: {},
  responseHeaders: { 'x-request-id': 'abc' },
  responseBody: null,
};

/** Values of every kind a field may be sent as, the valid and the invalid. */
const anything = fc.oneof(
  fc.constantFrom(
    null,
    undefined,
    true,
    0,
    -1,
    99,
    200.5,
    599,
    600,
    Number.MAX_VALUE,
    '',
    '/',
    'x',
    'GET',
    'fetch',
    'HTTP',
    'ftp',
    SOURCE,
    'not-a-uuid',
  ),
  fc.constantFrom(
    'http://a.example:8080',
    'https://b.example/',
    'ftp://c.example',
    ' https://d.example ',
    'https://e.example:99999',
    '/path',
    '/p\u0000',
    '/\ud800',
  ),
  fc.constantFrom('2026-01-01T00:00:00Z', '2026-01-01T01:00:00+01:00', '2026-13-01T00:00:00Z', 'yesterday'),
  fc.string(),
  fc.array(fc.string(), { maxLength: 2 }),
);
const headerMap = fc.oneof(
  { arbitrary: fc.dictionary(fc.string(), fc.string()), weight: 6 },
  fc.dictionary(
    fc.string(),
    fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.array(fc.oneof(fc.string(), fc.integer()), { maxLength: 2 })),
  ),
  fc.constantFrom(
    JSON.parse('{"__proto__":"x"}') as unknown,
    { 'a\u0000': 'b' },
    { a: '\ud83d\ude00' },
    { a: '\udc00' },
    [],
    null,
    'text',
  ),
);
const mostly = <T>(valid: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: valid, weight: 10 }, { arbitrary: anything, weight: 1 });
// Mostly the ordinary value per field, so that many generated bodies are valid, and bodies
// that differ from a valid one in one or two fields are common.
const body = fc.record(
  {
    domainUrl: mostly(fc.constant(ordinary.domainUrl)),
    pathnameUrl: mostly(fc.constant(ordinary.pathnameUrl)),
    trafficSourceId: mostly(fc.constant(SOURCE)),
    status: mostly(fc.constant(200)),
    protocol: mostly(fc.constantFrom('http', 'HTTPS')),
    method: mostly(fc.constantFrom('get', 'PATCH')),
    trafficUserId: mostly(fc.constantFrom(null, SOURCE)),
    elapsedTime: mostly(fc.constant(1.5)),
    requestHeaders: headerMap,
    requestBody: fc.jsonValue(),
    queryParams: headerMap,
    responseHeaders: headerMap,
    responseBody: fc.oneof(fc.jsonValue(), fc.constant(undefined)),
    startedAt: mostly(fc.constantFrom('2026-01-01T00:00:00Z', '2026-01-01T01:00:00.5+01:00')),
    route: mostly(fc.constantFrom('/orders/:id', '/')),
    extra: anything,
  },
  {
    requiredKeys: [
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
    ],
  },
);

describe('the quick compose check', () => {
  it('takes an ordinary body, and gives exactly what the schema gives', () => {
    for (const input of [
      ordinary,
      { ...ordinary, trafficUserId: null, startedAt: '2026-01-01T01:00:00+01:00', route: '/orders', extra: 1 },
    ]) {
      const quick = parseComposeFast(input);
      expect(quick).toBeDefined();
      expect(quick).toStrictEqual(ComposeRecord.parse(input));
    }
  });

  it('never passes a body the schema refuses, and never gives other than the schema does', () => {
    let taken = 0;
    fc.assert(
      fc.property(body, (input) => {
        const quick = parseComposeFast(input);
        const parsed = ComposeRecord.safeParse(input);
        if (quick === undefined) return;
        taken += 1;
        expect(parsed.success && quick).toStrictEqual(parsed.data);
      }),
      { numRuns: 3000 },
    );
    // Else the property would hold of a check that takes nothing.
    expect(taken).toBeGreaterThan(30);
  });

  it('does the same for batches, whose size it checks as the contract does', () => {
    const batch = contract.composeBatch.body;
    for (const input of [[ordinary], [ordinary, { ...ordinary, method: 'get' }]])
      expect(parseComposeBatchFast(input)).toStrictEqual(batch.parse(input));
    for (const input of [
      [],
      Array.from({ length: 1001 }, () => ordinary),
      [ordinary, { ...ordinary, status: 99 }],
      ordinary,
    ]) {
      expect(parseComposeBatchFast(input)).toBeUndefined();
      expect(batch.safeParse(input).success).toBe(false);
    }
  });
});
