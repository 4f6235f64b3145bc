import { type FreshDatabase, freshDatabase } from '@tapline/testkit/daemon';
import { type Kysely, Migrator, sql } from 'kysely';
import type { HttpTrafficTable } from '../http-traffic/table.js';
import type { DB } from './schema.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrationProvider } from './migrations/index.js';
import { type Db, type OpenedDatabase, openDatabase } from './open.js';
import type { Backend } from './dialect.js';

const BEFORE_REBUILD = '2026-11-22T0700-traffic-indexes';
const REBUILD = '2026-11-23T0600-traffic-exchange-keys';
const ROUTE = '2026-11-24T0300-traffic-route';
const RETENTION = '2026-11-24T0400-retention';
type PayloadColumn = 'request_headers' | 'request_body' | 'query_params' | 'response_headers' | 'response_body';
/** The tables of the exchange until 2026-11-25T0100-compact-storage folded them into the entry. */
interface ExchangeTables {
  requests: { id: string; traffic_source_id: string; headers: string; body: string | null; query_params: string };
  responses: { id: string; traffic_source_id: string; headers: string; body: string | null };
}
/** The schema these tests seed: entries had no stream number before 2026-11-24T0200. */
type BeforeStreamSeq = Omit<DB, 'http_traffic'> &
  ExchangeTables & { http_traffic: Omit<HttpTrafficTable, 'stream_seq' | PayloadColumn> };

const TRAFFIC_IDS = ['01900000-0000-7000-8000-000000000001', '01900000-0000-7000-8000-000000000002'];

interface SchemaRow {
  name: string;
  sql: string;
}

/** What each engine's catalog says of the schema, asked in its own words. */
interface Catalog {
  indexNames(db: Db): Promise<string[]>;
  /** The tables http_traffic's foreign keys point to. */
  parentsOfTraffic(db: Db): Promise<string[]>;
  /** Every table, column, index and constraint, one row each, by name. */
  schema(db: Db): Promise<SchemaRow[]>;
  /** The schema as it must be once http_traffic has lost its request and response keys. */
  withoutExchangeKeys(rows: SchemaRow[]): SchemaRow[];
  /** Foreign keys are enforced, and none is broken. */
  keysChecked(db: Db): Promise<void>;
}

const EXCHANGE_INDEXES = ['http_traffic_request', 'http_traffic_response'];

const CATALOGS: Record<Backend, Catalog> = {
  sqlite: {
    indexNames: async (db) =>
      (
        await sql<{
          name: string;
        }>`select name from sqlite_master where type = 'index' and tbl_name = 'http_traffic' and sql is not null order by name`.execute(
          db,
        )
      ).rows.map((r) => r.name),
    parentsOfTraffic: async (db) =>
      (await sql<{ table: string }>`select "table" from pragma_foreign_key_list('http_traffic')`.execute(db)).rows
        .map((r) => r.table)
        .sort(),
    schema: async (db) =>
      (
        await sql<SchemaRow>`select name, sql from sqlite_master where sql is not null and name not like 'sqlite_%' order by name`.execute(
          db,
        )
      ).rows,
    withoutExchangeKeys: (rows) =>
      rows
        .filter((row) => !EXCHANGE_INDEXES.includes(row.name))
        .map((row) =>
          row.name === 'http_traffic'
            ? {
                ...row,
                sql: row.sql
                  .replace(' references "requests" ("id") on delete cascade', '')
                  .replace(' references "responses" ("id") on delete cascade', ''),
              }
            : row,
        ),
    async keysChecked(db) {
      // The rebuild turns foreign keys off around its transaction; they must be on again.
      expect((await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(db)).rows[0]?.foreign_keys).toBe(1);
      expect((await sql`pragma foreign_key_check`.execute(db)).rows).toEqual([]);
    },
  },
  postgres: {
    indexNames: async (db) =>
      (
        await sql<{
          name: string;
        }>`select indexname as name from pg_indexes where tablename = 'http_traffic' and indexname <> 'http_traffic_pkey' order by name`.execute(
          db,
        )
      ).rows.map((r) => r.name),
    parentsOfTraffic: async (db) =>
      (
        await sql<{
          table: string;
        }>`select confrelid::regclass::text as table from pg_constraint where conrelid = 'http_traffic'::regclass and contype = 'f'`.execute(
          db,
        )
      ).rows
        .map((r) => r.table)
        .sort(),
    schema: async (db) =>
      (
        await sql<SchemaRow>`
          select table_name || '.' || column_name as name, data_type || ' ' || is_nullable || ' ' || coalesce(column_default, '') as sql
            from information_schema.columns where table_schema = 'public'
          union all select indexname, indexdef from pg_indexes where schemaname = 'public'
          union all select conname, pg_get_constraintdef(oid) from pg_constraint where connamespace = 'public'::regnamespace
          order by name, sql`.execute(db)
      ).rows,
    withoutExchangeKeys: (rows) =>
      rows.filter(
        (row) =>
          ![...EXCHANGE_INDEXES, 'http_traffic_request_id_fkey', 'http_traffic_response_id_fkey'].includes(row.name),
      ),
    async keysChecked(db) {
      expect(
        (await sql`select conname from pg_constraint where contype = 'f' and not convalidated`.execute(db)).rows,
      ).toEqual([]);
    },
  },
};

/**
 * A database written by an earlier daemon upgrades in place when a newer one opens it: rows,
 * links and cascades survive, and the schema is the one a new database gets.
 */
describe('migrations of a database that holds data', () => {
  let fresh: FreshDatabase;
  let opened: OpenedDatabase;
  let catalog: Catalog;

  beforeEach(async () => {
    fresh = await freshDatabase();
    opened = openDatabase(fresh.locator);
    catalog = CATALOGS[opened.dialect.backend];
  });
  afterEach(async () => {
    await opened.close();
    await fresh.drop();
  });

  const migrator = () => new Migrator({ db: opened.db, provider: migrationProvider(opened.dialect) });
  /** Up to the rebuild these tests are about; later migrations have their own test below. */
  const migrateToRebuild = async () => expect((await migrator().migrateTo(REBUILD)).error).toBeUndefined();

  async function seedAtOldSchema(): Promise<void> {
    const { error } = await migrator().migrateTo(BEFORE_REBUILD);
    expect(error).toBeUndefined();
    const now = '2026-11-20T10:00:00.000Z';
    const db = opened.db as unknown as Kysely<BeforeStreamSeq>;
    await db
      .insertInto('users')
      .values({
        id: 'u1',
        email: 'ann@example.com',
        name: 'ann',
        password_hash: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    await db
      .insertInto('traffic_sources')
      .values({
        id: 's1',
        user_id: 'u1',
        name: 'shop',
        traffic_domain: 'shop.example.com',
        created_at: now,
        updated_at: now,
      })
      .execute();
    await db
      .insertInto('domains')
      .values({ id: 'd1', traffic_source_id: 's1', value: 'shop.example.com', created_at: now })
      .execute();
    await db
      .insertInto('pathnames')
      .values({ id: 'p1', traffic_source_id: 's1', domain_id: 'd1', value: '/orders', created_at: now })
      .execute();
    for (const [i, id] of TRAFFIC_IDS.entries()) {
      await db
        .insertInto('requests')
        .values({ id: `rq${i}`, traffic_source_id: 's1', headers: '{}', body: null, query_params: '{}' })
        .execute();
      await db
        .insertInto('responses')
        .values({ id: `rs${i}`, traffic_source_id: 's1', headers: '{}', body: `{"n":${i}}` })
        .execute();
      await db
        .insertInto('http_traffic')
        .values({
          id,
          traffic_source_id: 's1',
          domain_id: 'd1',
          pathname_id: 'p1',
          request_id: `rq${i}`,
          response_id: `rs${i}`,
          status: 500 + i,
          method: 'POST',
          level: 'FATAL',
          protocol: 'HTTPS',
          elapsed_time: 1.5 + i,
          traffic_user_id: i === 0 ? null : 'tu',
          created_at: now,
        })
        .execute();
    }
    await db
      .insertInto('core_logs')
      .values({
        id: 'c1',
        traffic_source_id: 's1',
        http_traffic_id: TRAFFIC_IDS[0] ?? null,
        title: 't',
        description: 'd',
        source: 'api',
        layer: 'db',
        stack: 's',
        created_at: now,
      })
      .execute();
  }

  const old = () => opened.db as unknown as Kysely<BeforeStreamSeq>;
  const trafficRows = () => old().selectFrom('http_traffic').selectAll().orderBy('id').execute();
  const indexNames = () => catalog.indexNames(opened.db);
  const parentsOfTraffic = () => catalog.parentsOfTraffic(opened.db);

  it('keeps every row and link when http_traffic loses its request and response keys', async () => {
    await seedAtOldSchema();
    const before = await trafficRows();
    expect(await parentsOfTraffic()).toEqual(['domains', 'pathnames', 'requests', 'responses', 'traffic_sources']);

    await migrateToRebuild();

    expect(await trafficRows()).toEqual(before);
    expect(await parentsOfTraffic()).toEqual(['domains', 'pathnames', 'traffic_sources']);
    expect(await indexNames()).toEqual([
      'http_traffic_domain_created',
      'http_traffic_pathname_created',
      'http_traffic_source_created',
      'http_traffic_source_level',
      'http_traffic_source_method',
      'http_traffic_source_status',
    ]);
    // The core log kept its link (SQLite dropped the old table with foreign keys off)...
    const log = await opened.db.selectFrom('core_logs').select('http_traffic_id').executeTakeFirstOrThrow();
    expect(log.http_traffic_id).toBe(TRAFFIC_IDS[0]);
    // ...keys are enforced and whole, and still cascade from the source to every table.
    await catalog.keysChecked(opened.db);
    await opened.db.deleteFrom('traffic_sources').where('id', '=', 's1').execute();
    for (const table of ['http_traffic', 'requests', 'responses', 'core_logs', 'pathnames', 'domains'] as const) {
      expect(await old().selectFrom(table).select('id').execute()).toEqual([]);
    }
  });

  it('changes nothing in the schema but the two keys and their indexes', async () => {
    await seedAtOldSchema();
    const before = await catalog.schema(opened.db);
    await migrateToRebuild();
    const expected = catalog.withoutExchangeKeys(before);
    expect(expected.length).toBeGreaterThan(10);
    expect(JSON.stringify(expected.filter((row) => row.name.startsWith('http_traffic')))).not.toContain('requests');
    expect(await catalog.schema(opened.db)).toEqual(expected);
  });

  it('migrates down to the keys and their indexes, and up again, without losing a row', async () => {
    await seedAtOldSchema();
    const before = await trafficRows();
    await migrateToRebuild();
    const down = await migrator().migrateDown();
    expect(down.error).toBeUndefined();
    expect(down.results?.[0]).toMatchObject({ migrationName: REBUILD, direction: 'Down', status: 'Success' });
    expect(await parentsOfTraffic()).toEqual(['domains', 'pathnames', 'requests', 'responses', 'traffic_sources']);
    expect(await indexNames()).toContain('http_traffic_request');
    expect(await trafficRows()).toEqual(before);
    await migrateToRebuild();
    expect(await trafficRows()).toEqual(before);
    expect(await parentsOfTraffic()).toEqual(['domains', 'pathnames', 'traffic_sources']);
  });

  it('adds the nullable route column, keeping every row, and drops it again going down', async () => {
    await seedAtOldSchema();
    const before = await trafficRows();
    expect((await migrator().migrateTo(RETENTION)).error).toBeUndefined();
    // Later migrations add columns of their own (stream_seq, numbered in id order).
    expect(await trafficRows()).toEqual(before.map((row, i) => ({ ...row, route: null, stream_seq: i + 1 })));
    await old()
      .updateTable('http_traffic')
      .set({ route: '/orders/:id' })
      .where('id', '=', TRAFFIC_IDS[0] ?? '')
      .execute();
    // Down to the rebuild: later migrations (if any) are undone first, then the route's.
    const down = await migrator().migrateTo(REBUILD);
    expect(down.error).toBeUndefined();
    expect(down.results?.find((r) => r.migrationName === ROUTE)).toMatchObject({
      direction: 'Down',
      status: 'Success',
    });
    expect(await trafficRows()).toEqual(before);
  });
});
