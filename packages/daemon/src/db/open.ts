import { describeLocator, parseLocator } from './locator.js';
import { openPostgres } from './postgres.js';
import { openSqlite } from './sqlite.js';
import type { OpenedDatabase, OpenOptions } from './types.js';

export type { Db, Executor, OpenedDatabase, OpenOptions, Store } from './types.js';

/**
 * `--db`: a `postgres://` or `postgresql://` URL opens a pool on that server, anything else the
 * SQLite file (`:memory:` gives a private in-memory database). Nothing connects yet: the first
 * query (`migrate`) does, and says why it cannot.
 */
export function openDatabase(value: string, options: OpenOptions = {}): OpenedDatabase {
  const locator = parseLocator(value);
  const description = describeLocator(locator);
  return locator.backend === 'postgres'
    ? { description, ...openPostgres(locator, options) }
    : { description, ...openSqlite(locator.file, { onCheckpointFailure: options.onCheckpointFailure }) };
}
