import type pg from 'pg';

/**
 * Gives every client of `pool` an 'error' listener for as long as it lives. The pool listens only
 * to its idle clients: one in use (Kysely holds it between the queries of a transaction) whose
 * server ended the session, as a fast shutdown does (57P01), emitted 'error' with no listener,
 * which ended the process (issue 24). The query in flight still fails with the error, and the
 * pool drops the client when it comes back unqueryable; the next query opens a new connection.
 */
export function listenToEveryClient(pool: pg.Pool, onError: (error: Error) => void = () => undefined): void {
  // An idle client's error reaches the listener below too; the pool's own event is only a copy.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', onError));
}
