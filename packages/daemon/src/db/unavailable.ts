import type { Logger } from 'pino';

/**
 * SQLSTATEs of a PostgreSQL server that cannot serve now, whatever the query: class 08 (the
 * connection), class 53 (out of disk, memory or connections), 57P01–57P03 (shut down, crashed,
 * not yet accepting: a restart) and 25006 (a read-only standby, after a failover).
 */
const POSTGRES_STATE = /^(?:08[0-9A-Z]{3}|53[0-9A-Z]{3}|57P0[123]|25006)$/;

/** The socket's errors on the way to the server. ENOENT: its Unix socket is gone while it is down. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * SQLite's result codes (better-sqlite3 gives the extended ones, SQLITE_IOERR_WRITE and so on) of
 * a file that cannot be opened, written or locked now: its folder or the disk, not the query.
 */
const SQLITE_CODE = /^SQLITE_(?:CANTOPEN|READONLY|IOERR|FULL|PERM|BUSY)(?:_|$)/;

/** node-postgres's own errors for a connection lost or never made; they carry no code. */
const PG_MESSAGE =
  /^(?:Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable|Query read timeout)/;

/** The code a database error carries (PostgreSQL's SQLSTATE, SQLite's or a socket's name), or ''. */
export const errorCode = (error: unknown): string =>
  typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : '';

/**
 * Whether `error` says the database cannot be reached or written now (docs/decisions.md §2.7), as
 * opposed to a query that is wrong: such a request is answered 503 with Retry-After, and the same
 * request succeeds once the database is back.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = errorCode(error);
  if (POSTGRES_STATE.test(code) || SOCKET_CODES.has(code) || SQLITE_CODE.test(code)) return true;
  if (code === 'ENOENT' && 'syscall' in error && error.syscall === 'connect') return true;
  // A host name with several addresses fails with one error per address.
  if (error instanceof AggregateError) return error.errors.some(isDatabaseUnavailable);
  return error instanceof Error && PG_MESSAGE.test(error.message);
}

/** `57P01 terminating connection due to administrator command`: the cause in one line, no stack. */
export function causeOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = errorCode(error);
  const message =
    error.message || (error instanceof AggregateError ? error.errors.map(causeOf).join('; ') : error.name);
  return code && !message.includes(code) ? `${code} ${message}` : message;
}

/** The one place that reports the database failing, for every request and every background task. */
export interface OutageLog {
  /** Logs `error` (one that isDatabaseUnavailable) as seen by `task`, unless its cause was logged lately. */
  report(error: unknown, task: string): void;
}

/** One line per cause at most this often: an outage under load fails hundreds of requests a second. */
export const OUTAGE_LOG_EVERY_MS = 10_000;

/**
 * A warn line naming the cause, the first time a cause is seen and then at most once per
 * `everyMs` for it, with how many failures the lines in between would have been. Never a stack:
 * the trace says nothing about why a server went away.
 */
export function createOutageLog(
  logger: Logger,
  now: () => number = Date.now,
  everyMs = OUTAGE_LOG_EVERY_MS,
): OutageLog {
  const last = new Map<string, { at: number; since: number }>();
  return {
    report(error, task) {
      const cause = causeOf(error);
      const key = errorCode(error) || cause;
      const seen = last.get(key);
      const at = now();
      if (seen && at - seen.at < everyMs) {
        seen.since++;
        return;
      }
      if (last.size > 100) last.clear();
      last.set(key, { at, since: 0 });
      logger.warn(
        { event: 'database_unavailable', cause, task, ...(seen ? { alsoFailed: seen.since } : {}) },
        'the database is unavailable; requests get 503 until it is back',
      );
    },
  };
}
