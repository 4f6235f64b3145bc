import { type Kysely, sql } from 'kysely';
import type { SqlDialect } from '../dialect.js';

// Frozen once shipped. `unknown` schema: a migration must not depend on today's tables.
type AnyDB = Kysely<unknown>;

const TABLES = ['route_stats', 'route_rollups'] as const;

/**
 * SQLite: the route statistics' two tables rebuilt `without rowid` (docs/decisions.md §21.7), so
 * that a row lives in its primary key's b-tree. A rowid table kept the key twice (the table and its
 * automatic index) and a read of a window walked the index, then looked each row up in the table:
 * a 24-hour read grouped its hour rows in 14 ms instead of 35. The columns, the key and the foreign
 * keys are the table's own (its stored `create table`, with `without rowid` added), rows are copied
 * as they are, in one transaction: a stopped upgrade leaves the old table. PostgreSQL has no rowid.
 */
export async function up(db: AnyDB, dialect: SqlDialect): Promise<void> {
  if (dialect.backend !== 'sqlite') return;
  await db.transaction().execute(async (trx) => {
    for (const table of TABLES) {
      const { rows } = await sql<{
        sql: string;
      }>`select sql from sqlite_master where type = 'table' and name = ${table}`.execute(trx);
      const create = rows[0]?.sql;
      if (create === undefined) throw new Error(`the table ${table} is missing`);
      if (/without rowid\s*$/i.test(create)) continue;
      const rebuilt = `${table}_rebuilt`;
      const quoted = `"${table}"`;
      if (!create.includes(quoted)) throw new Error(`unexpected create statement of ${table}`);
      await sql.raw(`${create.replace(quoted, `"${rebuilt}"`)} without rowid`).execute(trx);
      await sql.raw(`insert into "${rebuilt}" select * from ${quoted}`).execute(trx);
      await sql.raw(`drop table ${quoted}`).execute(trx);
      await sql.raw(`alter table "${rebuilt}" rename to ${quoted}`).execute(trx);
    }
  });
}
