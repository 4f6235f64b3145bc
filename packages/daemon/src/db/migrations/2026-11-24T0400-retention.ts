import { type Kysely, sql } from 'kysely';
import type { SqlDialect } from '../dialect.js';

// Frozen once shipped. `unknown` schema: a migration must not depend on today's tables.
type AnyDB = Kysely<unknown>;

/**
 * What retention needs. An index on the outbox's link to an entry, so deleting an entry's
 * deliveries is a lookup, not a scan of the outbox; and one on the rollup's pathname, so deleting
 * an unused pathname checks its foreign key there by a lookup, not a scan of the rollup per
 * pathname (docs/performance.md#retention-and-the-pruner).
 *
 * SQLite: `auto_vacuum = INCREMENTAL`, so that the pruner can give freed pages back to the file
 * system (`pragma incremental_vacuum`) and the file shrinks. The mode of an existing database only
 * changes with a VACUUM, which rewrites the whole file once: it needs free disk space about the
 * size of the database and takes some seconds per GB, at this one upgrade. A new database pays
 * nothing (it is nearly empty here). Without it, pages freed by a prune would still be reused,
 * but the file would never shrink.
 * PostgreSQL: nothing to switch; autovacuum makes the space of deleted rows reusable.
 */
export async function up(db: AnyDB, dialect: SqlDialect): Promise<void> {
  await db.schema
    .createIndex('webhook_deliveries_traffic')
    .on('webhook_deliveries')
    .column('http_traffic_id')
    .execute();
  await db.schema.createIndex('traffic_counts_pathname').on('traffic_counts').column('pathname_id').execute();
  if (dialect.backend !== 'sqlite') return;
  const { rows } = await sql<{ auto_vacuum: number }>`pragma auto_vacuum`.execute(db);
  if (rows[0]?.auto_vacuum === 2) return;
  await sql`pragma auto_vacuum = incremental`.execute(db);
  await sql`vacuum`.execute(db);
}

export async function down(db: AnyDB): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_traffic').execute();
  await db.schema.dropIndex('traffic_counts_pathname').execute();
}
