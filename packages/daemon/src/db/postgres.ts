import { Kysely, PostgresDialect } from 'kysely';
import { postgresDialect } from './dialect.js';
import type { DatabaseLocator } from './locator.js';
import { withoutSecret } from './locator.js';
import { migrateToLatest, reasonOf } from './migrate.js';
import type { OpenedDatabase, OpenOptions } from './types.js';
import { defaultPoolSize } from './pool-size.js';
import type { DB } from './schema.js';

/** A pool of connections to a PostgreSQL server; the schema is the SQLite one, in the same tables. */
export function openPostgres(
  locator: Extract<DatabaseLocator, { backend: 'postgres' }>,
  options: OpenOptions,
): Omit<OpenedDatabase, 'description'> {
  const max = options.pool ?? defaultPoolSize();
  // node-postgres is loaded when Kysely makes the pool, at the first query (migrate), and the
  // signals' module when serve asks for them: a SQLite start loads neither (issue 30's cold start).
  const pool = async () => (await import('./pg-pool.js')).postgresPool(locator.url, max);
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  const where = locator.description.location;
  const explain = (error: unknown) => `PostgreSQL at ${where}: ${withoutSecret(reasonOf(error), locator.password)}`;
  return {
    db,
    dialect: postgresDialect,
    migrate: () => migrateToLatest(db, postgresDialect, explain),
    signals: async (logger) => (await import('./pg-signals.js')).postgresSignals(locator.url, logger),
    close: () => db.destroy(),
  };
}
