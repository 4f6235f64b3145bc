import { type HttpTrafficRecord } from '@tapline/shared';
import { realisticRecord } from '@tapline/testkit';
import { type Kysely, Migrator, sql } from 'kysely';
import { expect } from 'vitest';
import { recordOf } from '../http-traffic/repo.js';
import { migrationProvider } from './migrations/index.js';
import type { OpenedDatabase } from './open.js';

// For the tests of 2026-11-25T0100-compact-storage: a database as the daemons before it wrote one.

/** The last schema with separate request and response rows. */
export const THREE_TABLES = '2026-11-24T0400-retention';

/** Entries as a daemon before compact storage wrote them, each with its request and response row. */
export interface OldTables {
  users: { id: string; email: string; name: string; password_hash: string | null; created_at: string; updated_at: string };
  traffic_sources: { id: string; user_id: string; name: string; traffic_domain: string; created_at: string; updated_at: string };
  domains: { id: string; traffic_source_id: string; value: string; created_at: string };
  pathnames: { id: string; traffic_source_id: string; domain_id: string; value: string; created_at: string };
  requests: { id: string; traffic_source_id: string; headers: string; body: string | null; query_params: string };
  responses: { id: string; traffic_source_id: string; headers: string; body: string | null };
  http_traffic: {
    id: string; traffic_source_id: string; domain_id: string; pathname_id: string; request_id: string; response_id: string; status: number; method: string;
    level: string; protocol: string; elapsed_time: number; traffic_user_id: string | null; created_at: string; route: string | null; stream_seq: number;
  };
}

export const SOURCE = '01900000-0000-7000-8000-00000000000a';
export const id = (n: number, kind: number) => `01900000-0000-7${kind}00-8000-${n.toString(16).padStart(12, '0')}`;
const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));

/** What the old repository answered for each stored entry: its recordOf over the old join. */
export async function oldRecords(db: Kysely<OldTables>): Promise<HttpTrafficRecord[]> {
  const rows = await db
    .selectFrom('http_traffic as t')
    .innerJoin('domains as d', 'd.id', 't.domain_id')
    .innerJoin('pathnames as p', 'p.id', 't.pathname_id')
    .innerJoin('requests as rq', 'rq.id', 't.request_id')
    .innerJoin('responses as rs', 'rs.id', 't.response_id')
    .selectAll('t')
    .select(['d.value as domain', 'p.value as pathname', 'rq.headers as request_headers', 'rq.body as request_body', 'rq.query_params', 'rs.headers as response_headers', 'rs.body as response_body'])
    .orderBy('t.id')
    .execute();
  // The old rows have the columns recordOf maps; the stored unions were written by the old daemon.
  return rows.map((row) => recordOf(row as Parameters<typeof recordOf>[0]));
}

/** `count` entries at the old schema: realistic records, and the edge values of a payload. */
export async function seedThreeTables(opened: OpenedDatabase, count: number): Promise<void> {
  expect((await new Migrator({ db: opened.db, provider: migrationProvider(opened.dialect) }).migrateTo(THREE_TABLES)).error).toBeUndefined();
  const db = opened.db as unknown as Kysely<OldTables>;
  const now = '2026-11-20T10:00:00.000Z';
  await db.insertInto('users').values({ id: 'u1', email: 'ann@example.com', name: 'ann', password_hash: null, created_at: now, updated_at: now }).execute();
  await db.insertInto('traffic_sources').values({ id: SOURCE, user_id: 'u1', name: 'shop', traffic_domain: 'shop.example.com', created_at: now, updated_at: now }).execute();
  await db.insertInto('domains').values({ id: 'd1', traffic_source_id: SOURCE, value: 'shop.example.com', created_at: now }).execute();
  await db.insertInto('pathnames').values({ id: 'p1', traffic_source_id: SOURCE, domain_id: 'd1', value: '/orders', created_at: now }).execute();
  const edge = [
    { requestHeaders: { 'x-note': `Café ☕ ${'日本語 '.repeat(20)}`, accept: ['a', 'b'] }, requestBody: { t: 'naïve' }, queryParams: {}, responseHeaders: {}, responseBody: '☕' },
    { requestHeaders: {}, requestBody: null, queryParams: { q: 'é' }, responseHeaders: { 'x-a': 'b' }, responseBody: null },
    { requestHeaders: { a: 'b' }, requestBody: [1, 'two', null], queryParams: {}, responseHeaders: {}, responseBody: 0 },
  ];
  // One transaction: thousands of autocommits would take the test's whole time on a file.
  await db.transaction().execute(async (db) => {
  for (let n = 0; n < count; n++) {
    const r = n < edge.length ? edge[n]! : realisticRecord(n, SOURCE);
    await db.insertInto('requests').values({ id: id(n, 1), traffic_source_id: SOURCE, headers: JSON.stringify(r.requestHeaders), body: json(r.requestBody), query_params: JSON.stringify(r.queryParams) }).execute();
    await db.insertInto('responses').values({ id: id(n, 2), traffic_source_id: SOURCE, headers: JSON.stringify(r.responseHeaders), body: json(r.responseBody) }).execute();
    await db
      .insertInto('http_traffic')
      .values({
        id: id(n, 0), traffic_source_id: SOURCE, domain_id: 'd1', pathname_id: 'p1', request_id: id(n, 1), response_id: id(n, 2), status: [200, 404, 503][n % 3]!,
        method: ['GET', 'POST'][n % 2]!, level: ['INFO', 'WARNING', 'FATAL'][n % 3]!, protocol: 'HTTPS', elapsed_time: 1.25 + n / 7, traffic_user_id: n % 4 === 0 ? 'tu' : null,
        created_at: new Date(Date.parse(now) + n * 1000).toISOString(), route: n % 5 === 0 ? '/orders/:id' : null, stream_seq: n + 1,
      })
      .execute();
  }
  });
  // The rollup the old ingest kept beside the entries (meta.total, and so the list, read it).
  await sql`insert into traffic_counts (traffic_source_id, pathname_id, domain_id, method, status, level, count)
    select traffic_source_id, pathname_id, domain_id, method, status, level, count(*) from http_traffic
    group by traffic_source_id, pathname_id, domain_id, method, status, level`.execute(db);
}

