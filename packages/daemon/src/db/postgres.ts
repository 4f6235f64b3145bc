import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { postgresDialect } from './dialect.js';
import { listenToEveryClient } from './pg-clients.js';
import { copyingPool } from './pg-copy.js';
import { postgresSignals } from './pg-signals.js';
import type { DatabaseLocator } from './locator.js';
import { withoutSecret } from './locator.js';
import { migrateToLatest, reasonOf } from './migrate.js';
import type { OpenedDatabase, OpenOptions } from './types.js';
import { defaultPoolSize } from './pool-size.js';
import type { DB } from './schema.js';

/**
 * Counts and sums come back from PostgreSQL as `bigint`, which node-postgres hands over as text
 * to be safe beyond 2^53; Tapline's counts stay far below that, so they are numbers, as SQLite
 * gives them. Set on this pool's own table, never on the driver's global one.
 */
function typeParsers(): pg.TypeOverrides {
  const types = new pg.TypeOverrides();
  types.setTypeParser(pg.types.builtins.INT8, 'text', Number);
  return types;
}

/** A server that does not answer fails the start in this time instead of hanging it. */
const CONNECT_TIMEOUT_MS = 10_000;

/** A pool of connections to a PostgreSQL server; the schema is the SQLite one, in the same tables. */
export function openPostgres(
  locator: Extract<DatabaseLocator, { backend: 'postgres' }>,
  options: OpenOptions,
): Omit<OpenedDatabase, 'description'> {
  const pool = new pg.Pool({
    connectionString: locator.url,
    max: options.pool ?? defaultPoolSize(),
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    application_name: 'taplined',
    types: typeParsers(),
  });
  // A connection the server closed (a restart, a failover) is dropped from the pool, which opens
  // a new one on the next query; the queries it fails are answered 503 (db/unavailable.ts).
  listenToEveryClient(pool);
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: copyingPool(pool) }) });
  const where = locator.description.location;
  const explain = (error: unknown) => `PostgreSQL at ${where}: ${withoutSecret(reasonOf(error), locator.password)}`;
  return {
    db,
    dialect: postgresDialect,
    migrate: () => migrateToLatest(db, postgresDialect, explain),
    signals: (logger) => postgresSignals(locator.url, logger),
    close: () => db.destroy(),
  };
}
