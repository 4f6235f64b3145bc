import type { Kysely } from 'kysely';

// Frozen once shipped. `unknown` schema: a migration must not depend on today's tables.
type AnyDB = Kysely<unknown>;

/**
 * Route rules (issue 26, docs/statistics.md "Rules"): templates a source's owner sets, unique per
 * source. `route_reassignments` is the resumable job that moves stored entries after a rule
 * changes (route-stats/reassign.ts): one row per source with work left, `after_id` the last entry
 * id it has looked at (null: from the start), `generation` bumped by every change of the rules so
 * that a pass begun under older rules starts over. Both go with their source.
 */
export async function up(db: AnyDB): Promise<void> {
  await db.schema
    .createTable('route_rules')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('traffic_source_id', 'text', (c) => c.notNull().references('traffic_sources.id').onDelete('cascade'))
    .addColumn('template', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('route_rules_source_template', ['traffic_source_id', 'template'])
    .execute();
  await db.schema
    .createTable('route_reassignments')
    .addColumn('traffic_source_id', 'text', (c) => c.primaryKey().references('traffic_sources.id').onDelete('cascade'))
    .addColumn('after_id', 'text')
    .addColumn('generation', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: AnyDB): Promise<void> {
  await db.schema.dropTable('route_reassignments').execute();
  await db.schema.dropTable('route_rules').execute();
}
