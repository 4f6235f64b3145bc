import { type Kysely, sql } from 'kysely';
import type { SqlDialect } from '../dialect.js';

// Frozen: a migration that has shipped is never edited; add a new one instead.
// `any` is Kysely's documented type for migrations, which must not depend on today's schema.
type AnyDB = Kysely<unknown>;

const cascade = 'cascade' as const;

/**
 * `http_traffic` without foreign keys to `requests` and `responses`. Those rows are only ever
 * deleted with their source, which cascades to all three tables, so the two keys protected
 * nothing; but each cost every stored record a parent lookup and, for the cascade, an index
 * (`http_traffic_request`, `http_traffic_response`) to update, at every ingest
 * (docs/performance.md#storage-format).
 *
 * SQLite cannot drop a foreign key in place (PostgreSQL would drop the constraints with ALTER
 * TABLE): the table is rebuilt by the procedure of SQLite's ALTER TABLE documentation (section
 * 7), with foreign keys off so that dropping the old table does not cascade to `core_logs`, all in
 * one transaction, and checked before it commits. PostgreSQL drops and adds the constraints in
 * place (added with the PostgreSQL backend, before any PostgreSQL database existed).
 */
export async function up(db: AnyDB, dialect: SqlDialect): Promise<void> {
  if (dialect.dropsConstraints) await alterKeys(db, false);
  else await rebuild(db, false);
}

export async function down(db: AnyDB, dialect: SqlDialect): Promise<void> {
  if (dialect.dropsConstraints) await alterKeys(db, true);
  else await rebuild(db, true);
}

/** The keys as 2026-11-21T0000-initial named them: PostgreSQL's `<table>_<column>_fkey`. */
const EXCHANGE_KEYS = [
  {
    constraint: 'http_traffic_request_id_fkey',
    index: 'http_traffic_request',
    column: 'request_id',
    parent: 'requests',
  },
  {
    constraint: 'http_traffic_response_id_fkey',
    index: 'http_traffic_response',
    column: 'response_id',
    parent: 'responses',
  },
];

async function alterKeys(db: AnyDB, exchangeKeys: boolean): Promise<void> {
  for (const key of EXCHANGE_KEYS) {
    if (exchangeKeys) {
      await db.schema
        .alterTable('http_traffic')
        .addForeignKeyConstraint(key.constraint, [key.column], key.parent, ['id'], (c) => c.onDelete(cascade))
        .execute();
      await db.schema.createIndex(key.index).on('http_traffic').column(key.column).execute();
    } else {
      await db.schema.dropIndex(key.index).execute();
      await db.schema.alterTable('http_traffic').dropConstraint(key.constraint).execute();
    }
  }
}

const COLUMNS = [
  'id',
  'traffic_source_id',
  'domain_id',
  'pathname_id',
  'request_id',
  'response_id',
  'status',
  'method',
  'level',
  'protocol',
  'elapsed_time',
  'traffic_user_id',
  'created_at',
];

async function rebuild(db: AnyDB, exchangeKeys: boolean): Promise<void> {
  // The pragma is a no-op inside a transaction, so it is set around it.
  await sql`pragma foreign_keys = off`.execute(db);
  try {
    await db.transaction().execute(async (trx) => {
      await createTrafficTable(trx, 'http_traffic_rebuilt', exchangeKeys);
      const columns = sql.join(COLUMNS.map((c) => sql.ref(c)));
      await sql`insert into http_traffic_rebuilt (${columns}) select ${columns} from http_traffic`.execute(trx);
      await trx.schema.dropTable('http_traffic').execute();
      await trx.schema.alterTable('http_traffic_rebuilt').renameTo('http_traffic').execute();
      await createTrafficIndexes(trx, exchangeKeys);
      // Only the tables the rebuild touched: an old violation elsewhere must not block the upgrade.
      for (const table of ['http_traffic', 'core_logs']) {
        const broken = await sql`select * from pragma_foreign_key_check(${table})`.execute(trx);
        if (broken.rows.length > 0)
          throw new Error(`rebuilding http_traffic left ${broken.rows.length} broken foreign keys in ${table}`);
      }
    });
  } finally {
    await sql`pragma foreign_keys = on`.execute(db);
  }
}

/** The shape of 2026-11-21T0000-initial, with or without the request and response keys. */
async function createTrafficTable(db: AnyDB, name: string, exchangeKeys: boolean): Promise<void> {
  await db.schema
    .createTable(name)
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('traffic_source_id', 'text', (c) => c.notNull().references('traffic_sources.id').onDelete(cascade))
    .addColumn('domain_id', 'text', (c) => c.notNull().references('domains.id').onDelete(cascade))
    .addColumn('pathname_id', 'text', (c) => c.notNull().references('pathnames.id').onDelete(cascade))
    .addColumn('request_id', 'text', (c) =>
      exchangeKeys ? c.notNull().references('requests.id').onDelete(cascade) : c.notNull(),
    )
    .addColumn('response_id', 'text', (c) =>
      exchangeKeys ? c.notNull().references('responses.id').onDelete(cascade) : c.notNull(),
    )
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('level', 'text', (c) => c.notNull())
    .addColumn('protocol', 'text', (c) => c.notNull())
    .addColumn('elapsed_time', 'real', (c) => c.notNull())
    .addColumn('traffic_user_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}

/** The indexes as the migrations up to 2026-11-22T0700 left them. */
async function createTrafficIndexes(db: AnyDB, exchangeKeys: boolean): Promise<void> {
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
    http_traffic_source_level: ['traffic_source_id', 'level', 'created_at', 'id'],
    http_traffic_source_status: ['traffic_source_id', 'status', 'created_at', 'id'],
    http_traffic_source_method: ['traffic_source_id', 'method', 'created_at', 'id'],
    http_traffic_domain_created: ['domain_id', 'created_at', 'id'],
    http_traffic_pathname_created: ['pathname_id', 'created_at', 'id'],
    ...(exchangeKeys ? { http_traffic_request: ['request_id'], http_traffic_response: ['response_id'] } : {}),
  };
  for (const [name, columns] of Object.entries(indexes))
    await db.schema.createIndex(name).on('http_traffic').columns(columns).execute();
}
