import { type Kysely, sql } from 'kysely';

// Frozen once shipped. `unknown` schema: a migration must not depend on today's tables.
type AnyDB = Kysely<unknown>;

const PENDING = 'http_traffic_route_pending';
const NEWEST_FIRST = 'http_traffic_source_created';
const NEWEST_FIRST_COLUMNS = ['traffic_source_id', 'created_at', 'id', 'status', 'method', 'level'];

/**
 * Route templates (issue 26, docs/statistics.md): one row per template of a source, with where it
 * came from (`sent`, `rule`, `inferred`), and `http_traffic.route_id` naming an entry's. The column
 * is nullable without a default, so adding it rewrites no row on either engine; entries stored
 * before it get their route from a background job (route-stats/backfill.ts), batch by batch, so an
 * upgrade of a large database neither waits at start nor starts over when it is stopped. The
 * entries' old `route` column stays: it is what the client sent, which rules never override.
 * The route id joins the newest-first index's columns (as status, method and level did, 2026-11-26T0200):
 * `route=` on the list and the entry counts of `GET /routes` walk that index without reading the
 * table, and it costs half of an index of its own (docs/performance.md#reads-and-indexes). The
 * backfill finds its entries by a partial index of those still without a route, empty once it is
 * done and never touched by entries stored after.
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
  await db.schema.createIndex(PENDING).on('http_traffic').column('id').where(sql.ref('route_id'), 'is', null).execute();
  await db.schema.dropIndex(NEWEST_FIRST).execute();
  await db.schema
    .createIndex(NEWEST_FIRST)
    .on('http_traffic')
    .columns([...NEWEST_FIRST_COLUMNS, 'route_id'])
    .execute();
}

export async function down(db: AnyDB): Promise<void> {
  await db.schema.dropIndex(NEWEST_FIRST).execute();
  await db.schema.createIndex(NEWEST_FIRST).on('http_traffic').columns(NEWEST_FIRST_COLUMNS).execute();
  await db.schema.dropIndex(PENDING).execute();
  await db.schema.alterTable('http_traffic').dropColumn('route_id').execute();
  await db.schema.dropTable('routes').execute();
}
