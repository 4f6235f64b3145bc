import { join } from 'node:path';
import { resolveHome } from '@tapline/shared/lean';
import type { Command } from 'commander';
import { ensureHome } from '../bootstrap.js';
import type { SqlDialect } from '../db/dialect.js';
import { type Db, openDatabase } from '../db/open.js';
import { parsePoolSize } from '../flags.js';

/** The program's flags that say where the data is; every command reads them (`optsWithGlobals`). */
export interface DatabaseFlags {
  readonly home?: string;
  readonly db?: string;
  readonly dbPool?: string;
}

const env = process.env;

/** `--home`, `--db` and `--db-pool`, with their environment variables and defaults. */
export function locations(opts: DatabaseFlags) {
  const home = resolveHome(opts.home, env);
  return { home, database: opts.db || env.TAPLINE_DB || join(home, 'tapline.db'), dbPool: parsePoolSize(opts.dbPool) };
}

/**
 * Admin commands open the same database as the daemon, by the same `--db`; this is safe while
 * daemons run (SQLite's WAL, PostgreSQL's transactions), and what they change every daemon sees
 * on its next request: nothing of users or tokens is cached in a daemon.
 */
async function withDatabase<T>(opts: DatabaseFlags, run: (db: Db, dialect: SqlDialect) => Promise<T>): Promise<T> {
  const { home, database, dbPool } = locations(opts);
  ensureHome(home);
  const opened = openDatabase(database, { pool: dbPool ?? 2 });
  try {
    await opened.migrate();
    return await run(opened.db, opened.dialect);
  } finally {
    await opened.close();
  }
}

/** How a command finds its database (the program's --db/--home), and opens it migrated. */
export interface CommandDatabase {
  /** `--db`: a SQLite file or a PostgreSQL URL. */
  database(command: Command): string;
  withDatabase<T>(command: Command, run: (db: Db, dialect: SqlDialect) => Promise<T>): Promise<T>;
}

export const commandDatabase: CommandDatabase = {
  database: (command) => locations(command.optsWithGlobals<DatabaseFlags>()).database,
  withDatabase: (command, run) => withDatabase(command.optsWithGlobals<DatabaseFlags>(), run),
};
