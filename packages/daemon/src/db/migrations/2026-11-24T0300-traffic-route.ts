import type { Kysely } from 'kysely';

// Frozen: a migration that has shipped is never edited; add a new one instead.
type AnyDB = Kysely<unknown>;

/**
 * `http_traffic.route`: the route template a request matched (`/users/:id`), when the client
 * knew it (OTLP's `http.route`, the compose extension field `route`). Nullable, no default, so
 * adding it rewrites no row in SQLite or PostgreSQL; per-route statistics will group by it.
 */
export async function up(db: AnyDB): Promise<void> {
  await db.schema.alterTable('http_traffic').addColumn('route', 'text').execute();
}

export async function down(db: AnyDB): Promise<void> {
  await db.schema.alterTable('http_traffic').dropColumn('route').execute();
}
