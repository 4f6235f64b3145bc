import { Kysely, PostgresDialect, sql } from 'kysely';
import { postgresDialect } from './dialect.js';
import type { DatabaseLocator } from './locator.js';
import { withoutSecret } from './locator.js';
import { MigrationError, migrateToLatest, reasonOf } from './migrate.js';
import type { OpenedDatabase, OpenOptions } from './types.js';
import { defaultPoolSize } from './pool-size.js';
import type { DB } from './schema.js';

/**
 * The oldest PostgreSQL Tapline runs on, as `server_version_num`: the kept reads set
 * `plan_cache_mode` (decisions §20.34), which PostgreSQL 12 brought.
 */
export const OLDEST_POSTGRES = 120_000;

/** Why a server of this `server_version_num` cannot hold Tapline's data, in one line; none when it can. */
export function tooOld(versionNum: number, where: string): string | undefined {
  if (!(versionNum < OLDEST_POSTGRES)) return undefined; // a version not given as a number is not refused
  const major = Math.floor(versionNum / 10_000);
  return `PostgreSQL at ${where} is version ${major}; Tapline needs PostgreSQL ${OLDEST_POSTGRES / 10_000} or later`;
}

/** A pool of connections to a PostgreSQL server; the schema is the SQLite one, in the same tables. */
export function openPostgres(
  locator: Extract<DatabaseLocator, { backend: 'postgres' }>,
  options: OpenOptions,
): Omit<OpenedDatabase, 'description'> {
  const max = options.pool ?? defaultPoolSize();
  // node-postgres is loaded when Kysely makes the pool, at the first query (migrate), and the
  // signals' module when serve asks for them: a SQLite start loads neither (issue 30's cold start).
  const pool = async () => (await import('./pg-pool.js')).postgresPool(locator.url, max);
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  const where = locator.description.location;
  const explain = (error: unknown) => `PostgreSQL at ${where}: ${withoutSecret(reasonOf(error), locator.password)}`;
  return {
    db,
    dialect: postgresDialect,
    migrate: async () => {
      // Before anything is written: an older server would take the schema, then fail every request.
      let versionNum: number;
      try {
        const { rows } = await sql<{ v: string }>`select current_setting('server_version_num') as v`.execute(db);
        versionNum = Number(rows[0]?.v);
      } catch (error) {
        throw new MigrationError(explain(error));
      }
      const refused = tooOld(versionNum, where);
      if (refused !== undefined) throw new MigrationError(refused);
      await migrateToLatest(db, postgresDialect, explain);
    },
    signals: async (logger) => (await import('./pg-signals.js')).postgresSignals(locator.url, logger),
    close: () => db.destroy(),
  };
}
