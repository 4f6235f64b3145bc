import { type Kysely, sql } from 'kysely';
import type { SqlDialect } from '../dialect.js';
import { foldRowsIntoCompactTable, trainDictionaries } from './compact-rows.js';

// Frozen once shipped. `unknown` schema: a migration must not depend on today's tables.
type AnyDB = Kysely<unknown>;

const cascade = 'cascade' as const;

/** Indexes of the newest-first walk; level, status and method filters read it (docs/storage.md). */
const FILTER_INDEXES = ['http_traffic_source_level', 'http_traffic_source_status', 'http_traffic_source_method'];

/**
 * Compact storage (issue 14, docs/storage.md). The request and response rows are folded into
 * their entry (each carried its own text id, the source id and two indexes), the header sets
 * and bodies are compressed on SQLite (db/payload.ts, one trained dictionary per
 * source in `payload_dictionaries`), the level, status and method indexes go, and new entries
 * store no request and response ids (derived from the entry's id; the old ones keep theirs).
 *
 * SQLite: the entries are copied into a new table in batches of 1,000, each its own transaction,
 * keeping their rowids; an interrupted upgrade starts again after the last rowid copied (Kysely
 * runs SQLite migrations outside a transaction). The swap is the one procedure of SQLite's ALTER
 * TABLE documentation (section 7), as 2026-11-23T0600 did it.
 * PostgreSQL keeps its values as JSON text (its filters read them with jsonb); the columns are
 * filled by one UPDATE … FROM inside the migration's transaction, which an interruption rolls back.
 */
export async function up(db: AnyDB, dialect: SqlDialect): Promise<void> {
  await db.schema
    .createTable('payload_dictionaries')
    .ifNotExists()
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('traffic_source_id', 'text', (c) => c.notNull().references('traffic_sources.id').onDelete(cascade))
    .addColumn('data', dialect.backend === 'sqlite' ? 'blob' : 'bytea', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  if (dialect.backend === 'sqlite') await upSqlite(db, dialect);
  else await upPostgres(db);
}

async function upPostgres(db: AnyDB): Promise<void> {
  for (const column of ['request_headers', 'request_body', 'query_params', 'response_headers', 'response_body']) {
    await db.schema.alterTable('http_traffic').addColumn(column, 'text').execute();
  }
  // An entry whose rows are missing (`taplined check` reports it) keeps empty header sets rather than being lost.
  await sql`update http_traffic as t set request_headers = coalesce(r.headers, '{}'), request_body = r.body, query_params = coalesce(r.query_params, '{}'),
      response_headers = coalesce(s.headers, '{}'), response_body = s.body
    from http_traffic as x left join requests as r on r.id = x.request_id left join responses as s on s.id = x.response_id
    where x.id = t.id`.execute(db);
  for (const column of ['request_headers', 'query_params', 'response_headers']) {
    await db.schema
      .alterTable('http_traffic')
      .alterColumn(column, (c) => c.setNotNull())
      .execute();
  }
  for (const column of ['request_id', 'response_id'])
    await db.schema
      .alterTable('http_traffic')
      .alterColumn(column, (c) => c.dropNotNull())
      .execute();
  for (const table of ['requests', 'responses']) await db.schema.dropTable(table).execute();
  for (const name of FILTER_INDEXES) await db.schema.dropIndex(name).execute();
}

async function upSqlite(db: AnyDB, dialect: SqlDialect): Promise<void> {
  const columns = (
    await sql<{ name: string }>`select name from pragma_table_info('http_traffic')`.execute(db)
  ).rows.map((r) => r.name);
  if (columns.includes('request_headers')) return; // swapped already; only the migrator's record was missing
  await createCompactTable(db);
  const dictionaries = await trainDictionaries(db, dialect);
  await foldRowsIntoCompactTable(db, dictionaries);
  // The pragma is a no-op inside a transaction, so it is set around it.
  await sql`pragma foreign_keys = off`.execute(db);
  try {
    await db.transaction().execute(async (trx) => {
      for (const table of ['http_traffic', 'requests', 'responses']) await trx.schema.dropTable(table).execute();
      await trx.schema.alterTable('http_traffic_compact').renameTo('http_traffic').execute();
      const indexes: Record<string, string[]> = {
        http_traffic_source_created: [
          'traffic_source_id',
          'created_at',
          'id',
          'status',
          'method',
          'level',
          'domain_id',
          'pathname_id',
        ],
        http_traffic_domain_created: ['domain_id', 'created_at', 'id'],
        http_traffic_pathname_created: ['pathname_id', 'created_at', 'id'],
      };
      for (const [name, on] of Object.entries(indexes))
        await trx.schema.createIndex(name).on('http_traffic').columns(on).execute();
      await trx.schema
        .createIndex('http_traffic_source_stream')
        .on('http_traffic')
        .columns(['traffic_source_id', 'stream_seq'])
        .unique()
        .execute();
      for (const table of ['http_traffic', 'core_logs']) {
        const broken = await sql`select * from pragma_foreign_key_check(${table})`.execute(trx);
        if (broken.rows.length > 0)
          throw new Error(`compacting http_traffic left ${broken.rows.length} broken foreign keys in ${table}`);
      }
    });
  } finally {
    await sql`pragma foreign_keys = on`.execute(db);
  }
}

/** The entries' table as the migrations up to 2026-11-24T0400 left it, with the exchange folded in. */
async function createCompactTable(db: AnyDB): Promise<void> {
  await db.schema
    .createTable('http_traffic_compact')
    .ifNotExists()
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('traffic_source_id', 'text', (c) => c.notNull().references('traffic_sources.id').onDelete(cascade))
    .addColumn('domain_id', 'text', (c) => c.notNull().references('domains.id').onDelete(cascade))
    .addColumn('pathname_id', 'text', (c) => c.notNull().references('pathnames.id').onDelete(cascade))
    // Kept for the entries stored before; null for new ones, whose ids are derived (http-traffic/exchange-id.ts exchangeIdOf).
    .addColumn('request_id', 'text')
    .addColumn('response_id', 'text')
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('level', 'text', (c) => c.notNull())
    .addColumn('protocol', 'text', (c) => c.notNull())
    .addColumn('elapsed_time', 'real', (c) => c.notNull())
    .addColumn('traffic_user_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('route', 'text')
    .addColumn('stream_seq', 'bigint', (c) => c.notNull().defaultTo(0))
    // Declared blob: a value is JSON text, or a compressed blob (db/payload.ts).
    .addColumn('request_headers', 'blob', (c) => c.notNull())
    .addColumn('request_body', 'blob')
    .addColumn('query_params', 'blob', (c) => c.notNull())
    .addColumn('response_headers', 'blob', (c) => c.notNull())
    .addColumn('response_body', 'blob')
    .execute();
}
