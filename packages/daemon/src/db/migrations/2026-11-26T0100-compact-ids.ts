import { type Kysely, sql } from 'kysely';
import type { SqlDialect } from '../dialect.js';

// Frozen once shipped. `unknown` schema: a migration must not depend on today's tables.
type AnyDB = Kysely<unknown>;

/** The columns this migration rewrites, as they were named when it shipped (db/stored-values.ts). */
const ID_COLUMNS = new Set([
  'id',
  'traffic_source_id',
  'domain_id',
  'pathname_id',
  'http_traffic_id',
  'user_id',
  'source_id',
  'webhook_id',
  'delivery_id',
  'summary_id',
  'request_id',
  'response_id',
]);
const BATCH = 5_000;

/** The entries' secondary indexes as 2026-11-25T0100-compact-storage made them. */
const TRAFFIC_INDEXES: Record<string, { columns: string[]; unique?: boolean }> = {
  http_traffic_source_created: {
    columns: ['traffic_source_id', 'created_at', 'id', 'status', 'method', 'level', 'domain_id', 'pathname_id'],
  },
  http_traffic_domain_created: { columns: ['domain_id', 'created_at', 'id'] },
  http_traffic_pathname_created: { columns: ['pathname_id', 'created_at', 'id'] },
  http_traffic_source_stream: { columns: ['traffic_source_id', 'stream_seq'], unique: true },
};

const HEX = '[0-9a-f]';
const UUID_GLOB = [8, 4, 4, 4, 12].map((n) => HEX.repeat(n)).join('-');

/** The stored form of one column, in SQL: what db/stored-values.ts's codec writes for new values. */
function compacted(column: string): string {
  const c = `"${column}"`;
  return `case when typeof(${c}) = 'text' and ${c} glob '${UUID_GLOB}' then unhex(replace(${c}, '-', '')) else ${c} end`;
}

/**
 * Compact ids (issue 14, docs/storage.md "Ids"). SQLite: every UUID becomes its 16 bytes, in
 * place, table by table in batches of 5,000 rows, each batch its own transaction (Kysely runs
 * SQLite migrations outside one). A value
 * already converted is no longer text, so an upgrade that stops continues where it was at the next
 * start. Foreign keys are off while parents and children disagree, and checked before the end.
 * PostgreSQL keeps its text: nothing to do there.
 */
export async function up(db: AnyDB, dialect: SqlDialect): Promise<void> {
  if (dialect.backend !== 'sqlite') return;
  // The entries' secondary indexes are rebuilt once at the end rather than updated row by row,
  // which is faster (docs/performance.md#storage-format); a resumed upgrade finds them gone and
  // builds them the same way.
  for (const name of Object.keys(TRAFFIC_INDEXES)) await db.schema.dropIndex(name).ifExists().execute();
  const brokenBefore = (await sql`select * from pragma_foreign_key_check`.execute(db)).rows.length;
  const tables = (
    await sql<{
      name: string;
    }>`select name from sqlite_schema where type = 'table' and name not like 'sqlite_%' and name not like 'kysely_%'`.execute(
      db,
    )
  ).rows;
  await sql`pragma foreign_keys = off`.execute(db);
  try {
    for (const { name } of tables) {
      const columns = (await sql<{ name: string }>`select name from pragma_table_info(${name})`.execute(db)).rows
        .map((r) => r.name)
        .filter((c) => ID_COLUMNS.has(c));
      if (columns.length > 0) await compactTable(db, name, columns);
    }
    // Only keys this upgrade broke fail it: a database with dangling keys from before (taplined
    // check reports them) still upgrades.
    const broken = (await sql<{ table: string }>`select * from pragma_foreign_key_check`.execute(db)).rows;
    if (broken.length > brokenBefore)
      throw new Error(
        `compacting ids broke ${broken.length - brokenBefore} foreign keys (tables ${[...new Set(broken.map((b) => b.table))].join(', ')})`,
      );
    for (const [name, { columns, unique }] of Object.entries(TRAFFIC_INDEXES)) {
      const index = db.schema.createIndex(name).ifNotExists().on('http_traffic').columns(columns);
      await (unique ? index.unique() : index).execute();
    }
  } finally {
    await sql`pragma foreign_keys = on`.execute(db);
  }
}

async function compactTable(db: AnyDB, table: string, columns: readonly string[]): Promise<void> {
  const set = sql.raw(columns.map((c) => `"${c}" = ${compacted(c)}`).join(', '));
  const pending = sql.raw(columns.map((c) => `typeof("${c}") = 'text'`).join(' or '));
  let after = Number.MIN_SAFE_INTEGER;
  for (;;) {
    const last = await db.transaction().execute(async (trx) => {
      // `as k`: SQLite names a rowid that is an alias (`id integer primary key`) after its column.
      const { rows } = await sql<{
        k: number;
      }>`select rowid as k from ${sql.table(table)} where rowid > ${after} and (${pending}) order by rowid limit ${BATCH}`.execute(
        trx,
      );
      const end = rows.at(-1)?.k;
      if (end === undefined) return undefined;
      // Only what is still text: rows converted before a crash are not rewritten again.
      await sql`update ${sql.table(table)} set ${set} where rowid > ${after} and rowid <= ${end} and (${pending})`.execute(
        trx,
      );
      return end;
    });
    if (last === undefined) return;
    after = last;
  }
}
