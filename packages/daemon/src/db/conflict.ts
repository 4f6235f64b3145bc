import { errorCode } from './unavailable.js';

/**
 * Answers to a transaction that lost a race with another and was rolled back whole: PostgreSQL's
 * deadlock victim (40P01) or serialization failure (40001), and SQLite's SQLITE_BUSY when another
 * process (`taplined prune`, `backup`) held the write lock past the busy timeout. Running it
 * again is the documented remedy.
 */
const CONFLICT_CODES = new Set(['40P01', '40001', 'SQLITE_BUSY']);

export function isConflict(error: unknown): boolean {
  const code = errorCode(error);
  // better-sqlite3 gives SQLite's extended codes: SQLITE_BUSY_SNAPSHOT when a read-then-write
  // transaction finds that another process wrote meanwhile (no busy timeout applies to it).
  return CONFLICT_CODES.has(code) || code.startsWith('SQLITE_BUSY_');
}
