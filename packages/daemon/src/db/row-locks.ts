import { PostgresAdapter, type SelectQueryBuilder } from 'kysely';
import type { Executor } from './open.js';

/**
 * Row locks, the one place where the two dialects' concurrency differs. Several daemons write
 * one PostgreSQL database at once, so a reader that decides a write must lock the rows it
 * decides on. SQLite has one writer at a time (a transaction is the lock) and no `FOR UPDATE`:
 * there the queries stay as they are.
 */
export const locksRows = (db: Executor): boolean => db.getExecutor().adapter instanceof PostgresAdapter;

/** The rows are this transaction's until it ends; others wait for them. */
export function lockedForUpdate<DB, TB extends keyof DB, O>(db: Executor, query: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O> {
  return locksRows(db) ? query.forUpdate() : query;
}

/** A queue's claim: rows another daemon is claiming right now are passed over, not waited for. */
export function claimable<DB, TB extends keyof DB, O>(db: Executor, query: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O> {
  return locksRows(db) ? query.forUpdate().skipLocked() : query;
}
