import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect.js';

// Frozen once shipped. `unknown` schema: a migration must not depend on today's tables.
type AnyDB = Kysely<unknown>;

/**
 * Per-minute numbers per source, route, method, domain and status class (1 for 1xx … 5 for 5xx;
 * the level follows from it, docs/decisions.md §5.6) (issue 26, docs/statistics.md), written in the
 * ingest transaction. Keyed by class and domain, so that `by=status` and a `where` on status,
 * level or domain stay exact, percentiles included. The key leads with the source and the minute, so a window of one source is
 * one range of the primary key, and so is what `--stats-retention` removes. `sketch` is a DDSketch
 * of the latencies (protobuf bytes); `latency_max` is kept beside it since the sketch's
 * serialised form drops its maximum. Byte sums are `bigint`: a busy minute passes 2^31 bytes.
 */
export async function up(db: AnyDB, dialect: SqlDialect): Promise<void> {
  await db.schema
    .createTable('route_stats')
    .addColumn('traffic_source_id', 'text', (c) => c.notNull().references('traffic_sources.id').onDelete('cascade'))
    .addColumn('minute', 'text', (c) => c.notNull())
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
    .addPrimaryKeyConstraint('route_stats_pk', [
      'traffic_source_id',
      'minute',
      'route_id',
      'method',
      'domain_id',
      'status_class',
    ])
    .execute();
}

export async function down(db: AnyDB): Promise<void> {
  await db.schema.dropTable('route_stats').execute();
}
