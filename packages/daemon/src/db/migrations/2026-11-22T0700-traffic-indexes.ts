import type { Kysely } from 'kysely';

type AnyDB = Kysely<unknown>;

/**
 * A domain or pathname id belongs to one source, so `(domain_id, created_at, id)` serves both the
 * domainId filter in newest-first order and the foreign-key lookups of a cascade: four indexes
 * become two, and every stored record updates two fewer B-trees.
 */
export async function up(db: AnyDB): Promise<void> {
  for (const name of [
    'http_traffic_source_domain',
    'http_traffic_source_pathname',
    'http_traffic_domain',
    'http_traffic_pathname',
  ]) {
    await db.schema.dropIndex(name).execute();
  }
  await db.schema
    .createIndex('http_traffic_domain_created')
    .on('http_traffic')
    .columns(['domain_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('http_traffic_pathname_created')
    .on('http_traffic')
    .columns(['pathname_id', 'created_at', 'id'])
    .execute();
}

export async function down(db: AnyDB): Promise<void> {
  await db.schema.dropIndex('http_traffic_domain_created').execute();
  await db.schema.dropIndex('http_traffic_pathname_created').execute();
  await db.schema
    .createIndex('http_traffic_source_domain')
    .on('http_traffic')
    .columns(['traffic_source_id', 'domain_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('http_traffic_source_pathname')
    .on('http_traffic')
    .columns(['traffic_source_id', 'pathname_id', 'created_at', 'id'])
    .execute();
  await db.schema.createIndex('http_traffic_domain').on('http_traffic').column('domain_id').execute();
  await db.schema.createIndex('http_traffic_pathname').on('http_traffic').column('pathname_id').execute();
}
