import type { Kysely, Transaction } from 'kysely';
import type { SqlDialect } from './dialect.js';
import { type DatabaseDescription, describeLocator, parseLocator } from './locator.js';
import { openPostgres } from './postgres.js';
import type { DB } from './schema.js';
import { openSqlite } from './sqlite.js';

export type Db = Kysely<DB>;
/** What a repository function runs on: the database, or a transaction of it. */
export type Executor = Db | Transaction<DB>;

/** The database with the one thing repositories may need to know of its engine: how it spells SQL. */
export interface Store {
  readonly db: Db;
  readonly dialect: SqlDialect;
}

export interface OpenedDatabase extends Store {
  /** For the startup line, the log and `/healthz`: the engine and where, never a password. */
  readonly description: DatabaseDescription;
  /** Runs migrations that have not run yet; a database of an older version upgrades in place. */
  migrate(): Promise<void>;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** Most connections to a PostgreSQL server at once (`--db-pool`); SQLite has one. */
  readonly pool?: number;
}

/**
 * `--db`: a `postgres://` or `postgresql://` URL opens a pool on that server, anything else the
 * SQLite file (`:memory:` gives a private in-memory database). Nothing connects yet: the first
 * query (`migrate`) does, and says why it cannot.
 */
export function openDatabase(value: string, options: OpenOptions = {}): OpenedDatabase {
  const locator = parseLocator(value);
  const description = describeLocator(locator);
  return locator.backend === 'postgres' ? { description, ...openPostgres(locator, options) } : { description, ...openSqlite(locator.file) };
}
