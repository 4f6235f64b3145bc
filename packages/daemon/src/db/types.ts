import type { Kysely, Transaction } from 'kysely';
import type { Logger } from 'pino';
import type { ClusterSignals } from './signals.js';
import type { SqlDialect } from './dialect.js';
import type { DatabaseDescription } from './locator.js';
import type { DB } from './schema.js';

// The types of an opened database, apart from open.ts so that the openers name them without a cycle.

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
  /** Wake-ups to and from the other daemons on this database (db/signals.ts); close them before the database. */
  signals(logger: Logger): Promise<ClusterSignals>;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** Most connections to a PostgreSQL server at once (`--db-pool`); SQLite has one. */
  readonly pool?: number;
  /** SQLite: the checkpoint thread failed (db/checkpointer.ts), once; the daemon logs it. */
  readonly onCheckpointFailure?: (error: unknown) => void;
}
