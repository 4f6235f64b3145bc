import { type Kysely, sql } from 'kysely';

type AnyDB = Kysely<unknown>;

/**
 * Counts of traffic per (source, pathname, method, status), kept in the ingest transaction, so
 * `meta.total` of a filtered list is a sum over a few hundred rows instead of a scan of millions.
 * And an ordering index that also carries the filter columns, so counts and pages bounded by
 * dates read only index entries, never table rows.
 */
export async function up(db: AnyDB): Promise<void> {
  await db.schema
    .createTable('traffic_counts')
    .addColumn('traffic_source_id', 'text', (c) => c.notNull().references('traffic_sources.id').onDelete('cascade'))
    .addColumn('pathname_id', 'text', (c) => c.notNull().references('pathnames.id').onDelete('cascade'))
    .addColumn('domain_id', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('level', 'text', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('traffic_counts_pk', ['traffic_source_id', 'pathname_id', 'method', 'status'])
    .execute();
  await sql`
    insert into traffic_counts (traffic_source_id, pathname_id, domain_id, method, status, level, count)
    select traffic_source_id, pathname_id, domain_id, method, status, level, count(*)
    from http_traffic group by traffic_source_id, pathname_id, domain_id, method, status, level
  `.execute(db);

  await db.schema.dropIndex('http_traffic_source_created').execute();
  await db.schema
    .createIndex('http_traffic_source_created')
    .on('http_traffic')
    .columns(['traffic_source_id', 'created_at', 'id', 'status', 'method', 'level', 'domain_id', 'pathname_id'])
    .execute();
}

export async function down(db: AnyDB): Promise<void> {
  await db.schema.dropIndex('http_traffic_source_created').execute();
  await db.schema
    .createIndex('http_traffic_source_created')
    .on('http_traffic')
    .columns(['traffic_source_id', 'created_at', 'id'])
    .execute();
  await db.schema.dropTable('traffic_counts').execute();
}
