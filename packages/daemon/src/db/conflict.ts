/**
 * Answers to a transaction that lost a race with another and was rolled back whole: PostgreSQL's
 * deadlock victim (40P01) or serialization failure (40001), and SQLite's SQLITE_BUSY when another
 * process (`taplined prune`, `backup`) held the write lock past the busy timeout. Running it
 * again is the documented remedy.
 */
const CONFLICT_CODES = new Set(['40P01', '40001', 'SQLITE_BUSY']);

export function isConflict(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' && CONFLICT_CODES.has(error.code);
}
