/**
 * PostgreSQL's answers to a transaction that lost a race with another and was rolled back whole:
 * a deadlock's victim (40P01) or a serialization failure (40001). Running it again is the
 * documented remedy. SQLite has one writer and never answers either.
 */
const CONFLICT_CODES = new Set(['40P01', '40001']);

export function isConflict(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' && CONFLICT_CODES.has(error.code);
}
