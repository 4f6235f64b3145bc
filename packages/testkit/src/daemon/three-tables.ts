import {
  type Db,
  migrationProvider,
  type OpenedDatabase,
  openDatabase,
  plainValues,
  recordOf,
  type Store,
} from '@tapline/daemon';
import { type HttpTrafficRecord } from '@tapline/shared';
import { Migrator, sql } from 'kysely';
import { afterEach, beforeEach, expect } from 'vitest';
import { realisticRecord } from '../realistic/record.js';
import { type FreshDatabase, freshDatabase } from './database.js';

// For the tests of 2026-11-25T0100-compact-storage: a database as the daemons before it wrote one.

/** A throwaway database opened (not migrated) before each test of the file, dropped after it. */
export function eachFreshDatabase(): () => OpenedDatabase {
  let fresh: FreshDatabase | undefined;
  let opened: OpenedDatabase | undefined;
  beforeEach(async () => {
    fresh = await freshDatabase();
    opened = openDatabase(fresh.locator);
  });
  afterEach(async () => {
    await opened?.close();
    await fresh?.drop();
  });
  return () => {
    if (!opened) throw new Error('no database outside a test');
    return opened;
  };
}

/** The database as versions before 2026-11-26T0100-compact-ids wrote it: text ids, read without the codec. */
export const asWritten = (opened: OpenedDatabase): Store => ({
  db: opened.db.withoutPlugins(),
  dialect: { ...opened.dialect, stored: plainValues },
});

/**
 * Today's reads join the route columns that 2026-11-27T0100-routes adds. To read an older database
 * as its daemon answered it, an empty stand-in of them is there for the read and gone before the
 * upgrade; entries with no route id show the template the backfill will give them, as they do
 * while it runs, so the answers before and after compare field by field.
 */
export async function readBeforeRoutes<T>(opened: OpenedDatabase, read: () => Promise<T>): Promise<T> {
  const db = opened.db.withoutPlugins();
  await sql`create table routes (id text primary key, template text not null)`.execute(db);
  await sql`alter table http_traffic add column route_id text`.execute(db);
  try {
    return await read();
  } finally {
    await sql`alter table http_traffic drop column route_id`.execute(db);
    await sql`drop table routes`.execute(db);
  }
}

/** The last schema with separate request and response rows. */
export const THREE_TABLES = '2026-11-24T0400-retention';

export const SOURCE = '01900000-0000-7000-8000-00000000000a';
const DOMAIN = '01900000-0000-7000-8000-00000000000d';
const PATHNAME = '01900000-0000-7000-8000-00000000000e';
export const id = (n: number, kind: number) => `01900000-0000-7${kind}00-8000-${n.toString(16).padStart(12, '0')}`;
const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));

/** What the old repository answered for each stored entry: its recordOf over the old join. */
export async function oldRecords(db: Db): Promise<HttpTrafficRecord[]> {
  // Raw SQL: today's schema types know no requests or responses tables. The stored unions were written by the old daemon.
  const { rows } = await sql<
    Parameters<typeof recordOf>[0]
  >`select t.*, d.value as domain, p.value as pathname, rq.headers as request_headers,
      rq.body as request_body, rq.query_params, rs.headers as response_headers, rs.body as response_body
    from http_traffic as t join domains as d on d.id = t.domain_id join pathnames as p on p.id = t.pathname_id
    join requests as rq on rq.id = t.request_id join responses as rs on rs.id = t.response_id order by t.id`.execute(
    db,
  );
  return rows.map(recordOf);
}

const EDGE = [
  {
    requestHeaders: { 'x-note': `Café ☕ ${'日本語 '.repeat(20)}`, accept: ['a', 'b'] },
    requestBody: { t: 'naïve' },
    queryParams: {},
    responseHeaders: {},
    responseBody: '☕',
  },
  {
    requestHeaders: {},
    requestBody: null,
    queryParams: { q: 'é' },
    responseHeaders: { 'x-a': 'b' },
    responseBody: null,
  },
  { requestHeaders: { a: 'b' }, requestBody: [1, 'two', null], queryParams: {}, responseHeaders: {}, responseBody: 0 },
];

/** `count` entries at the old schema: realistic records, and the edge values of a payload. */
export async function seedThreeTables(opened: OpenedDatabase, count: number): Promise<void> {
  expect(
    (await new Migrator({ db: opened.db, provider: migrationProvider(opened.dialect) }).migrateTo(THREE_TABLES)).error,
  ).toBeUndefined();
  const now = '2026-11-20T10:00:00.000Z';
  // One transaction: thousands of autocommits would take the test's whole time on a file.
  await opened.db.transaction().execute(async (db) => {
    await sql`insert into users (id, email, name, password_hash, created_at, updated_at) values ('u1', 'ann@example.com', 'ann', null, ${now}, ${now})`.execute(
      db,
    );
    await sql`insert into traffic_sources (id, user_id, name, traffic_domain, created_at, updated_at) values (${SOURCE}, 'u1', 'shop', 'shop.example.com', ${now}, ${now})`.execute(
      db,
    );
    await sql`insert into domains (id, traffic_source_id, value, created_at) values (${DOMAIN}, ${SOURCE}, 'shop.example.com', ${now})`.execute(
      db,
    );
    await sql`insert into pathnames (id, traffic_source_id, domain_id, value, created_at) values (${PATHNAME}, ${SOURCE}, ${DOMAIN}, '/orders', ${now})`.execute(
      db,
    );
    for (let n = 0; n < count; n++) {
      const r = EDGE[n] ?? realisticRecord(n, SOURCE);
      await sql`insert into requests (id, traffic_source_id, headers, body, query_params)
        values (${id(n, 1)}, ${SOURCE}, ${JSON.stringify(r.requestHeaders)}, ${json(r.requestBody)}, ${JSON.stringify(r.queryParams)})`.execute(
        db,
      );
      await sql`insert into responses (id, traffic_source_id, headers, body) values (${id(n, 2)}, ${SOURCE}, ${JSON.stringify(r.responseHeaders)}, ${json(r.responseBody)})`.execute(
        db,
      );
      const createdAt = new Date(Date.parse(now) + n * 1000).toISOString();
      await sql`insert into http_traffic (id, traffic_source_id, domain_id, pathname_id, request_id, response_id, status, method, level, protocol,
          elapsed_time, traffic_user_id, created_at, route, stream_seq)
        values (${id(n, 0)}, ${SOURCE}, ${DOMAIN}, ${PATHNAME}, ${id(n, 1)}, ${id(n, 2)}, ${[200, 404, 503][n % 3]}, ${['GET', 'POST'][n % 2]},
          ${['INFO', 'WARNING', 'FATAL'][n % 3]}, 'HTTPS', ${1.25 + n / 7}, ${n % 4 === 0 ? 'tu' : null}, ${createdAt}, ${n % 5 === 0 ? '/orders/:id' : null}, ${n + 1})`.execute(
        db,
      );
    }
    // The rollup the old ingest kept beside the entries (meta.total, and so the list, read it).
    await sql`insert into traffic_counts (traffic_source_id, pathname_id, domain_id, method, status, level, count)
      select traffic_source_id, pathname_id, domain_id, method, status, level, count(*) from http_traffic
      group by traffic_source_id, pathname_id, domain_id, method, status, level`.execute(db);
  });
}
