import { type Kysely, sql } from 'kysely';
import type { SqlDialect } from '../dialect.js';
import { foldMinutes } from './fold-minutes.js';

// Frozen once shipped. `unknown` schema: a migration must not depend on today's tables.
type AnyDB = Kysely<unknown>;

/**
 * Hour and day rows of the route statistics (docs/decisions.md §21.5): the columns of
 * `route_stats`, keyed by `span` (60 or 1440 minutes) and the bucket's `start` instead of the
 * minute, so a day's read merges 24 hour rows a group instead of 1,440 minute rows. From this
 * migration on, ingest writes them in its transaction beside the minute rows; the minute rows
 * stored before it are folded into them here, in the same transaction as the table's creation,
 * so a stopped upgrade leaves neither and runs again whole at the next start.
 */
export async function up(db: AnyDB, dialect: SqlDialect): Promise<void> {
  const work = async (trx: AnyDB) => {
    await trx.schema
      .createTable('route_rollups')
      .addColumn('traffic_source_id', 'text', (c) => c.notNull().references('traffic_sources.id').onDelete('cascade'))
      .addColumn('span', 'integer', (c) => c.notNull())
      .addColumn('start', 'text', (c) => c.notNull())
      .addColumn('route_id', 'text', (c) => c.notNull().references('routes.id').onDelete('cascade'))
      .addColumn('method', 'text', (c) => c.notNull())
      .addColumn('domain_id', 'text', (c) => c.notNull())
      .addColumn('status_class', 'integer', (c) => c.notNull())
      .addColumn('count', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('latency_max', dialect.doubleType, (c) => c.notNull().defaultTo(0))
      .addColumn('latency_sum', dialect.doubleType, (c) => c.notNull().defaultTo(0))
      .addColumn('request_bytes', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('response_bytes', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('sketch', dialect.backend === 'sqlite' ? 'blob' : 'bytea')
      .addPrimaryKeyConstraint('route_rollups_pk', [
        'traffic_source_id',
        'span',
        'start',
        'route_id',
        'method',
        'domain_id',
        'status_class',
      ])
      .execute();
    await foldMinutes(trx);
  };
  // PostgreSQL's migrator runs every pending migration in one transaction already; SQLite's does not.
  if (db.isTransaction) await work(db);
  else await db.transaction().execute(work);
}

export async function down(db: AnyDB): Promise<void> {
  await sql`drop table route_rollups`.execute(db);
}
