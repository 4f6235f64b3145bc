import type { Kysely } from 'kysely';

// Frozen once shipped. `unknown` schema: a migration must not depend on today's tables.
type AnyDB = Kysely<unknown>;

/**
 * A counter per source that a write raises when it changes numbers that are no longer the last few
 * minutes' (a late entry, a rule's move, a backfill): what a daemon's memory of closed windows is
 * checked against before it answers from it (route-stats/closed-blocks.ts, docs/decisions.md §21.9).
 * A source without a row has the counter at 0.
 */
export async function up(db: AnyDB): Promise<void> {
  await db.schema
    .createTable('route_stats_epochs')
    .addColumn('traffic_source_id', 'text', (c) =>
      c.primaryKey().notNull().references('traffic_sources.id').onDelete('cascade'),
    )
    .addColumn('epoch', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: AnyDB): Promise<void> {
  await db.schema.dropTable('route_stats_epochs').execute();
}
