import { Migrator } from 'kysely';
import type { SqlDialect } from './dialect.js';
import { migrationProvider } from './migrations/index.js';
import type { Db } from './types.js';

/** A migration that failed, or a database that could not be reached to migrate it. */
export class MigrationError extends Error {}

/** The driver's own words: Node reports a refused connection to every address of a host as an AggregateError with no message. */
export function reasonOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return reasonOf(error.errors[0]);
  if (error instanceof Error)
    return error.message || ('code' in error && typeof error.code === 'string' ? error.code : error.name);
  return JSON.stringify(error);
}

/**
 * Brings the schema to the newest version. Kysely's Migrator holds a lock while it runs (on
 * PostgreSQL a session advisory lock, and every pending migration in one transaction), so
 * daemons that start together on one fresh database migrate it once, the others waiting.
 * Migrations read and write stored forms (ids as blobs on SQLite, db/stored-values.ts), so they
 * run without the codec's plugin. `explain` turns the driver's error into the message shown (without secrets).
 */
export async function migrateToLatest(
  db: Db,
  dialect: SqlDialect,
  explain: (error: unknown) => string = reasonOf,
): Promise<void> {
  const { error, results } = await new Migrator({
    db: db.withoutPlugins(),
    provider: migrationProvider(dialect),
  }).migrateToLatest();
  if (error === undefined) return;
  const failed = results?.find((r) => r.status === 'Error');
  throw new MigrationError(
    failed ? `database migration ${failed.migrationName} failed: ${explain(error)}` : explain(error),
  );
}
