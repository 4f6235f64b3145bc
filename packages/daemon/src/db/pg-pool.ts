import type { PostgresPool } from 'kysely';
import pg from 'pg';
import { listenToEveryClient } from './pg-clients.js';
import { copyingPool } from './pg-copy.js';

// node-postgres and pg-copy-streams are loaded with this module, by a PostgreSQL database's first
// connection (db/postgres.ts), so that a SQLite start does not evaluate them (issue 30's cold start).

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

/** The pool Kysely's PostgresDialect runs on: at most `max` connections, each able to run a COPY. */
export function postgresPool(connectionString: string, max: number): PostgresPool {
  const pool = new pg.Pool({
    connectionString,
    max,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    application_name: 'taplined',
    types: typeParsers(),
  });
  // A connection the server closed (a restart, a failover) is dropped from the pool, which opens
  // a new one on the next query; the queries it fails are answered 503 (db/unavailable.ts).
  listenToEveryClient(pool);
  return copyingPool(pool);
}
