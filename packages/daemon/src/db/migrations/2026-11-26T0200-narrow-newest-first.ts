import type { Kysely } from 'kysely';

// Frozen once shipped. `unknown` schema: a migration must not depend on today's tables.
type AnyDB = Kysely<unknown>;

const NAME = 'http_traffic_source_created';

/**
 * The newest-first index keeps what the filters it serves test without reading the table
 * (status, method, level: docs/storage.md "Indexes") and no longer carries the domain and
 * pathname ids: their filters walk their own indexes (`domain_created`, `pathname_created`), and
 * the two ids cost bytes on every entry (docs/performance.md#reads-and-indexes). The `path` and
 * `domain` terms of `q` now read the entry's row for them as they walk.
 */
export async function up(db: AnyDB): Promise<void> {
  await db.schema.dropIndex(NAME).execute();
  await db.schema
    .createIndex(NAME)
    .on('http_traffic')
    .columns(['traffic_source_id', 'created_at', 'id', 'status', 'method', 'level'])
    .execute();
}

export async function down(db: AnyDB): Promise<void> {
  await db.schema.dropIndex(NAME).execute();
  await db.schema
    .createIndex(NAME)
    .on('http_traffic')
    .columns(['traffic_source_id', 'created_at', 'id', 'status', 'method', 'level', 'domain_id', 'pathname_id'])
    .execute();
}
