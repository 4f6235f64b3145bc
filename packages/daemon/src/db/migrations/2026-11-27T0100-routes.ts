import type { Kysely } from 'kysely';

// Frozen once shipped. `unknown` schema: a migration must not depend on today's tables.
type AnyDB = Kysely<unknown>;

/**
 * Route templates (issue 26, docs/statistics.md): one row per template of a source, with where it
 * came from (`sent`, `rule`, `inferred`), and `http_traffic.route_id` naming an entry's. The column
 * is nullable without a default, so adding it rewrites no row on either engine; entries stored
 * before it get their route from a background job (route-stats/backfill.ts), batch by batch, so an
 * upgrade of a large database neither waits at start nor starts over when it is stopped. The
 * entries' old `route` column stays: it is what the client sent, which rules never override.
 * The index serves `route=` on the list and the entry counts of `GET /routes`.
 */
export async function up(db: AnyDB): Promise<void> {
  await db.schema
    .createTable('routes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('traffic_source_id', 'text', (c) => c.notNull().references('traffic_sources.id').onDelete('cascade'))
    .addColumn('template', 'text', (c) => c.notNull())
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('routes_source_template', ['traffic_source_id', 'template'])
    .execute();
  await db.schema.alterTable('http_traffic').addColumn('route_id', 'text').execute();
  await db.schema.createIndex('http_traffic_route_created').on('http_traffic').columns(['route_id', 'created_at', 'id']).execute();
}

export async function down(db: AnyDB): Promise<void> {
  await db.schema.dropIndex('http_traffic_route_created').execute();
  await db.schema.alterTable('http_traffic').dropColumn('route_id').execute();
  await db.schema.dropTable('routes').execute();
}
