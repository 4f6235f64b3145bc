import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { databaseUrl } from './urls.js';

/** The run's PostgreSQL server as tests see it (provided by global-setup.ts). */
export interface TestServer {
  /** A URL, with a password, of a user allowed to create databases. */
  readonly url: string;
  /** The database migrated to the newest schema; test databases are copies of it. */
  readonly template: string;
  /** `SCHEMA_FINGERPRINT` of the template, to tell a test database whose schema a test changed. */
  readonly fingerprint: string;
}

/** Tables, columns and indexes of the public schema, as one hash. */
export const SCHEMA_FINGERPRINT = `select md5(string_agg(item, ',' order by item)) as fingerprint from (
  select table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable as item from information_schema.columns where table_schema = 'public'
  union all select indexdef from pg_indexes where schemaname = 'public') as schema`;

/** Databases given back, clean, for the next test: a table in the server's `postgres` database. */
export const freeList = (server: Pick<TestServer, 'template'>) => `${server.template}_free`;

export async function withClient<T>(url: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/**
 * A migrated database of the test's own: one a finished test gave back, or a new copy of the
 * template. Copying costs a few hundred milliseconds, emptying a used one a few dozen.
 */
export async function takeMigrated(server: TestServer): Promise<string> {
  return withClient(server.url, async (admin) => {
    const { rows } = await admin.query<{ name: string }>(
      `delete from ${freeList(server)} where name = (select name from ${freeList(server)} limit 1 for update skip locked) returning name`,
    );
    const reused = rows[0]?.name;
    if (reused) return reused;
    const name = `${server.template}_${randomBytes(6).toString('hex')}`;
    await admin.query(`create database ${name} template ${server.template}`);
    return name;
  });
}

/** Empties a test's database for the next test, or drops it when the test changed its schema. */
export async function giveBack(server: TestServer, name: string): Promise<void> {
  const clean = await withClient(databaseUrl(server.url, name), async (client) => {
    const { rows } = await client.query<{ fingerprint: string }>(SCHEMA_FINGERPRINT);
    if (rows[0]?.fingerprint !== server.fingerprint) return false;
    await client.query(`do $$ begin
      execute (select 'truncate table ' || string_agg(quote_ident(tablename), ', ') || ' cascade' from pg_tables where schemaname = 'public' and tablename not like 'kysely_migration%');
    end $$`);
    return true;
  });
  await withClient(server.url, (admin) =>
    clean
      ? admin.query(`insert into ${freeList(server)} (name) values ($1)`, [name])
      : admin.query(`drop database if exists ${name} with (force)`),
  );
}
