import type { Db } from '@tapline/daemon';
import type { DatabaseConnection } from 'kysely';

export interface DatabaseOutage {
  /** From now on every query fails with `error`, as on a database that went away. */
  fail(error: Error): void;
  /** Queries reach the database again. */
  heal(): void;
  /** How many queries the outage has refused so far: what a test waits on instead of a sleep. */
  refused(): number;
}

/**
 * Makes `db` fail on demand, below every query builder, prepared statement and transaction of the
 * daemon: at the connection, where a restarted PostgreSQL or an unwritable SQLite file fails.
 * Nothing of the daemon is replaced; only the connections its executor hands out are wrapped.
 */
export function databaseOutage(db: Db): DatabaseOutage {
  let failure: Error | undefined;
  let refused = 0;
  const refuse = (error: Error) => {
    refused += 1;
    return error;
  };
  const executor = db.getExecutor();
  const provide = executor.provideConnection.bind(executor);
  const wrap = (connection: DatabaseConnection): DatabaseConnection => ({
    executeQuery: (query) => (failure ? Promise.reject(refuse(failure)) : connection.executeQuery(query)),
    streamQuery(query, chunkSize) {
      if (failure) throw refuse(failure);
      return connection.streamQuery(query, chunkSize);
    },
  });
  executor.provideConnection = (consumer) => provide((connection) => consumer(wrap(connection)));
  return {
    fail: (error) => void (failure = error),
    heal: () => void (failure = undefined),
    refused: () => refused,
  };
}

/** The error node-postgres gives a query when a fast shutdown ends its session. */
export const adminShutdown = () =>
  Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01', severity: 'FATAL' });
/** The error of a connection to a server that is down. */
export const connectionRefused = () =>
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED', syscall: 'connect' });
/** better-sqlite3's error for a write the file system refused. */
export const sqliteWriteFailed = () => Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_WRITE' });
