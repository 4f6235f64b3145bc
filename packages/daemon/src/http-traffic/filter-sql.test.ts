import {
  compilePredicate,
  contract,
  type FilterExpr,
  type HttpTraffic,
  type HttpTrafficRecord,
  parseFilter,
  printFilter,
} from '@tapline/shared';
import fc from 'fast-check';
import { realisticRecord } from '@tapline/testkit';
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DB } from '../db/schema.js';
import { createSource, composeBody, type Harness, startHarness } from '@tapline/testkit/daemon';
import { postgresDialect } from '../db/dialect.js';
import { compileFilter } from './filter-sql.js';
import { getTrafficRecord, listTraffic } from './repo.js';

/** Records chosen so every field and operator has both matches and misses, edge texts included. */
const RECORDS = [
  { status: 200, method: 'GET', pathnameUrl: '/api/orders', elapsedTime: 12.5, responseBody: { ok: true } },
  {
    status: 201,
    method: 'POST',
    pathnameUrl: '/api/orders',
    requestBody: { note: 'Say "hi" 100%_done' },
    trafficUserId: '01a1fc8d-93a2-767e-92f3-e5a71388f88c',
  },
  {
    status: 404,
    method: 'GET',
    pathnameUrl: '/health',
    domainUrl: 'http://Other.example.com:8080',
    protocol: 'HTTP',
    responseBody: null,
  },
  { status: 500, method: 'PUT', pathnameUrl: '/api/Pay_ment', elapsedTime: 1500, responseBody: 'Upstream TIMEOUT' },
  {
    status: 503,
    method: 'DELETE',
    pathnameUrl: '/API/x',
    elapsedTime: 0,
    requestHeaders: { 'X-Trace': ['a%b', 'Zed'] },
    responseHeaders: { 'x-trace': 'é' },
  },
  {
    status: 302,
    method: 'PATCH',
    pathnameUrl: '/',
    requestHeaders: { 'Content-Type': 'application/JSON' },
    requestBody: ['timeout', 1],
  },
];

const word = fc.constantFrom(
  '',
  'api',
  'API',
  '/api/',
  '/',
  'orders',
  'o',
  '%',
  '_',
  'a%b',
  '"hi"',
  'timeout',
  'TIMEOUT',
  'json',
  'é',
  'zed',
  'shop.example.com',
  'other',
  '01a1',
);
const comparison: fc.Arbitrary<string> = fc.oneof(
  fc
    .tuple(
      fc.constantFrom('=', '!=', '>', '>=', '<', '<='),
      fc.constantFrom('0', '200', '404', '503', '2xx', '4xx', '5xx'),
    )
    .map(([op, v]) => `status${op}${v}`),
  fc
    .tuple(fc.constantFrom('=', '!=', '>', '>=', '<', '<='), fc.constantFrom('0', '12.5', '1500', '1.5s'))
    .map(([op, v]) => `latency${op}${v}`),
  fc
    .tuple(fc.constantFrom('=', '!=', '>', '<='), fc.constantFrom('INFO', 'WARNING', 'FATAL'))
    .map(([op, v]) => `level${op}${v}`),
  fc.tuple(fc.constantFrom('=', '!='), fc.constantFrom('GET', 'POST', 'PUT')).map(([op, v]) => `method${op}${v}`),
  fc.tuple(fc.constantFrom('=', '!='), fc.constantFrom('HTTP', 'HTTPS')).map(([op, v]) => `protocol${op}${v}`),
  fc
    .tuple(
      fc.constantFrom('path', 'domain', 'user', 'body', 'header.x-trace', 'header.content-type', 'header.missing'),
      fc.constantFrom('=', '!=', '^=', '~'),
      word,
    )
    .map(([f, op, v]) => `${f}${op}"${v.replace(/"/g, '\\"')}"`),
);
const expression: fc.Arbitrary<string> = fc.letrec<{ e: string }>((tie) => ({
  e: fc.oneof(
    { depthSize: 'small' },
    comparison,
    tie('e').map((e) => `not (${e})`),
    fc.tuple(tie('e'), fc.constantFrom('and', 'or'), tie('e')).map(([a, op, b]) => `(${a}) ${op} (${b})`),
  ),
})).e;

/** A source holding `inputs`, and a filter's answer both in SQL and in memory over them. */
function filterWorld(inputs: (sourceId: string) => Record<string, unknown>[]) {
  const world = {
    h: undefined as Harness | undefined,
    sourceId: '',
    records: [] as HttpTrafficRecord[],
    entries: [] as HttpTraffic[],
  };
  beforeAll(async () => {
    const h = (world.h = await startHarness());
    const { client } = await h.user();
    world.sourceId = (await createSource(client)).id;
    const { ids } = await client.call(contract.composeBatch, {
      params: { trafficSourceId: world.sourceId },
      body: inputs(world.sourceId).map((r) => composeBody(world.sourceId, r)),
    });
    for (const id of ids) world.records.push((await getTrafficRecord(h.deps, world.sourceId, id))!);
    world.entries = (await listTraffic(h.deps, world.sourceId, {}, { page: 1, limit: 1000 })).data;
  });
  afterAll(() => world.h?.close());
  async function bothWays(expr: FilterExpr) {
    const h = world.h!;
    const page = await listTraffic(h.deps, world.sourceId, { q: expr }, { page: 1, limit: 1000 });
    const predicate = compilePredicate(expr);
    const fromSql = page.data.map((e) => e.id).sort();
    const inMemory = world.entries
      .filter((e) =>
        predicate(
          e,
          world.records.find((r) => r.id === e.id),
        ),
      )
      .map((e) => e.id)
      .sort();
    return { fromSql, inMemory, total: page.meta.total };
  }
  return { world, bothWays };
}

describe('compileFilter means what compilePredicate means', () => {
  const { bothWays } = filterWorld(() => RECORDS);

  it.each([
    ['status=4xx', 1],
    ['body~"timeout"', 2],
    ['body~"100%_"', 1],
    ['header.x-trace~"A%B"', 1],
    ['header.content-type~json', 5],
    ['user=""', 5],
    ['domain=other.example.com:8080 and protocol=HTTP', 1],
    ['path^=/api/ and not path~"pay"', 2],
    ['level>=WARNING and latency>=1s', 1],
  ])('%s matches %i', async (q, count) => {
    const { fromSql, inMemory, total } = await bothWays(parseFilter(q));
    expect(fromSql).toEqual(inMemory);
    expect(fromSql).toHaveLength(count);
    expect(total).toBe(count);
  });

  it('agrees on generated expressions', async () => {
    await fc.assert(
      fc.asyncProperty(expression, async (q) => {
        const { fromSql, inMemory } = await bothWays(parseFilter(q));
        expect(fromSql, printFilter(parseFilter(q))).toEqual(inMemory);
      }),
      { numRuns: 300 },
    );
  });

  it('binds every value, and compiles for PostgreSQL too', () => {
    const pg = new Kysely<DB>({
      dialect: {
        createAdapter: () => new PostgresAdapter(),
        createDriver: () => new DummyDriver(),
        createIntrospector: (db) => new PostgresIntrospector(db),
        createQueryCompiler: () => new PostgresQueryCompiler(),
      },
    });
    const expr = parseFilter(`path^="'; drop table x; --" or header.x-a~"o'k" or body~'50%'`);
    const query = pg
      .selectFrom('http_traffic as t')
      .select('t.id')
      .where((eb) => compileFilter(eb, expr, { sourceId: 's', dialect: postgresDialect }))
      .compile();
    expect(query.sql).not.toContain('drop table');
    expect(query.sql).not.toContain("o'k");
    expect(query.sql).toContain('jsonb_each');
    expect(query.parameters).toEqual(expect.arrayContaining(["'; drop table x; --", 'x-a', "%o'k%", '%50\\%%']));
  });
});

/**
 * The same over compressed values (compact storage, docs/storage.md): realistic records enough to
 * train the source's dictionary, non-ASCII text above and below the raw threshold (64 bytes),
 * tiny values stored as they are, and bodies that are not objects.
 */
describe('body~ and header. over stored payloads, compressed or not', () => {
  const long = 'naïve café ☕ 日本語 '.repeat(6);
  const { world, bothWays } = filterWorld((sourceId) => [
    ...Array.from({ length: 14 }, (_, i) => realisticRecord(i + 1, sourceId)),
    { requestHeaders: { 'x-note': `Café ☕ ${long}` }, responseBody: { text: long } },
    { requestHeaders: { 'x-note': 'é' }, requestBody: { t: '日本' }, responseBody: 'ok' },
    { requestHeaders: {}, responseHeaders: {}, requestBody: null, responseBody: null },
    { responseBody: ['timeout', long, 1] },
  ]);
  const words = fc.constantFrom(
    '',
    'é',
    'café',
    'CAFÉ',
    '☕',
    '日本',
    'naïve',
    'timeout',
    'json',
    'application/json',
    'gzip',
    'mozilla',
    'items',
    'ok',
    '"',
    '{',
  );
  const payloadComparison = fc
    .tuple(
      fc.constantFrom(
        'body',
        'header.x-note',
        'header.content-type',
        'header.accept',
        'header.user-agent',
        'header.missing',
      ),
      fc.constantFrom('=', '!=', '^=', '~'),
      words,
    )
    .map(([f, op, v]) => `${f}${op}"${v.replace(/"/g, '\\"')}"`);

  it('stores long values compressed where the backend compresses, and short ones as they are', async () => {
    const h = world.h!;
    expect(h.deps.dialect.payloads.compresses).toBe(h.deps.dialect.backend === 'sqlite');
    if (h.deps.dialect.backend !== 'sqlite') return;
    const kinds = await sql<{
      kind: string;
      n: number;
    }>`select typeof(response_body) as kind, count(*) as n from http_traffic group by kind order by kind`.execute(
      h.deps.db,
    );
    expect(kinds.rows.map((r) => r.kind)).toEqual(['blob', 'null', 'text']);
    expect(await h.deps.db.selectFrom('payload_dictionaries').select('traffic_source_id').execute()).toEqual([
      { traffic_source_id: world.sourceId },
    ]);
  });

  it.each([
    ['header.x-note~"café ☕"', 1],
    ['header.x-note="é"', 1],
    ['body~"日本"', 3],
    ['body~"NAÏVE"', 0],
    ['body~"naïve café"', 2],
  ])('%s matches %i', async (q, count) => {
    const { fromSql, inMemory } = await bothWays(parseFilter(q));
    expect(fromSql).toEqual(inMemory);
    expect(fromSql).toHaveLength(count);
  });

  it('agrees on generated expressions', async () => {
    await fc.assert(
      fc.asyncProperty(payloadComparison, fc.constantFrom('and', 'or'), payloadComparison, async (a, op, b) => {
        const q = `(${a}) ${op} not (${b})`;
        const { fromSql, inMemory } = await bothWays(parseFilter(q));
        expect(fromSql, q).toEqual(inMemory);
      }),
      { numRuns: 150 },
    );
  });
});
