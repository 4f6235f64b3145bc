import { closeSync, existsSync, fsyncSync, linkSync, openSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import type { Database } from 'better-sqlite3';
import { migrations } from './index.js';
import { SCHEMA_MIGRATIONS, SCHEMA_STATEMENTS } from './sqlite-schema.js';

/** The two tables of Kysely's Migrator (its defaults), which a home made from the schema fills as it would. */
const MIGRATION_TABLE = 'kysely_migration';
const MIGRATION_LOCK_TABLE = 'kysely_migration_lock';
/** The one row of the lock table, as the Migrator writes it when it first runs (its MIGRATION_LOCK_ID). */
const MIGRATION_LOCK_ID = 'migration_lock';
/** `pragma auto_vacuum`'s value for incremental. */
const INCREMENTAL = 2;

const isEmpty = (sqlite: Database): boolean => sqlite.prepare('select count(*) from sqlite_master').pluck().get() === 0;

/**
 * A new SQLite database starts from the schema the migrations make (sqlite-schema.ts, generated
 * from them), in one transaction, rather than from running each migration in turn: that took most
 * of a first start's database time, with a commit per statement and a VACUUM to turn on
 * incremental auto-vacuum (docs/performance.md, "A new home from its schema"). The migrations the
 * schema stands for are recorded as done, with the time, as Kysely's Migrator records them, so
 * later migrations run on it as on any home. Returns whether it made the database.
 *
 * Nothing happens when the database has anything in it, or when the schema's migrations are not
 * the first of this build's (a build whose schema was not regenerated after a migration was
 * inserted before others): the migrations then run as always.
 */
export function startFromSchema(sqlite: Database, now: string): boolean {
  const names = Object.keys(migrations);
  if (SCHEMA_MIGRATIONS.some((name, i) => names[i] !== name) || !isEmpty(sqlite)) return false;
  // Incremental auto-vacuum (the pruner gives pages back with it), as the retention migration
  // sets it. openSqlite sets it on a new file before WAL writes its first page; a file whose first
  // page was written without it changes mode only by a VACUUM, which cannot run in a transaction.
  if (sqlite.pragma('auto_vacuum', { simple: true }) !== INCREMENTAL) {
    sqlite.pragma('auto_vacuum = incremental');
    sqlite.exec('vacuum');
  }
  const make = sqlite.transaction(() => {
    // Another process may have made it while this one waited for the write lock.
    if (!isEmpty(sqlite)) return false;
    for (const statement of SCHEMA_STATEMENTS) sqlite.exec(statement);
    const record = sqlite.prepare(`insert into "${MIGRATION_TABLE}" ("name", "timestamp") values (?, ?)`);
    for (const name of SCHEMA_MIGRATIONS) record.run(name, now);
    // Written here since allMigrated spares a new home the Migrator, which would have added it.
    sqlite.prepare(`insert into "${MIGRATION_LOCK_TABLE}" ("id", "is_locked") values (?, 0)`).run(MIGRATION_LOCK_ID);
    return true;
  });
  return make.immediate();
}

/**
 * The time a new home made by the build (scripts/new-home-template.mjs) records its migrations at:
 * a copy is restamped with its own (`restamp`). Before any time a migration can run at, so that a
 * copy whose first start ended before the restamp still lists its migrations before any later one,
 * as Kysely's Migrator requires; and the same in every build, so the file is too.
 */
export const TEMPLATE_TIME = '1970-01-01T00:00:00.000Z';

/** The first bytes of every SQLite database file. */
const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/**
 * Makes `file`, a database that does not exist yet, as a copy of `template`: a new home the build
 * made by startFromSchema (scripts/new-home-template.mjs, the build's `new-home.db` beside the
 * daemon's bundle), with incremental auto-vacuum and WAL set in its header. That spares a first start the new file's two rollback-journal transactions
 * (setting auto-vacuum, then WAL: eight `fsync`s) and the schema's transaction (docs/performance.md,
 * "Cold start: a new home copied"). The copy is written under a name of its own, synced, and linked
 * to `file` only when whole, so a crash or power loss leaves either no database or the whole copy,
 * never part of one; the folder is synced after. Returns whether `file` was made so; then restamp
 * its migrations (`restamp`).
 *
 * Nothing is copied (false) when `file`, or a WAL or rollback journal of an earlier database of that
 * name, exists: SQLite would replay a WAL left over into the copy. Nor when the copy cannot be
 * written or linked: another process made `file` meanwhile (it is then opened as theirs), or the
 * folder is missing, full or read-only, or the name one too long for the copy's, or the file system
 * cannot hard-link (a rename could replace a database made meanwhile); nor when the template is not
 * a database. The caller then opens `file` as without a template, and that open says what is wrong
 * with the path, in its own words.
 */
export function copyNewHome(file: string, template: string): boolean {
  if ([file, `${file}-wal`, `${file}-journal`].some((path) => existsSync(path))) return false;
  const copy = `${file}.new-${randomBytes(6).toString('hex')}`;
  let made = false;
  try {
    const bytes = readFileSync(template);
    if (!bytes.subarray(0, SQLITE_HEADER.length).equals(SQLITE_HEADER)) return false;
    const fd = openSync(copy, 'wx', 0o600);
    made = true;
    try {
      writeFileSync(fd, bytes);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    linkSync(copy, file);
  } catch {
    return false;
  } finally {
    if (made) removeCopy(copy);
  }
  syncFolder(dirname(file));
  return true;
}

/** The copy's own name, gone once linked (or not). What cannot remove it leaves a file nothing reads. */
function removeCopy(copy: string): void {
  try {
    unlinkSync(copy);
  } catch {
    // Linked or not, the database's name is what counts.
  }
}

/** Makes a new name in `folder` durable, where its file system can; SQLite ignores a folder that cannot either. */
function syncFolder(folder: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(folder, 'r');
    fsyncSync(fd);
  } catch {
    // A file system without fsync for folders: nothing more can be done for the name.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * A home copied from the build's (copyNewHome) records its migrations as done at this home's
 * time, `now`, as startFromSchema would have, not at TEMPLATE_TIME.
 */
export function restamp(sqlite: Database, now: string): void {
  sqlite.prepare(`update "${MIGRATION_TABLE}" set "timestamp" = ? where "timestamp" = ?`).run(now, TEMPLATE_TIME);
}

/**
 * Whether the database has recorded every migration of this build and no other, in their order, so
 * that Kysely's Migrator would have nothing to do: its check introspects every table, several times, which was
 * 10 to 15 ms of each start on an existing home (issue 30's cold start). Any other case (a
 * migration to run, a name this build does not know, no table yet) is left to the Migrator, which
 * runs or refuses as before.
 */
export function allMigrated(sqlite: Database): boolean {
  let recorded: unknown[];
  try {
    // In the Migrator's own order, which it requires to be the names' order ("corrupted migrations").
    recorded = sqlite.prepare(`select "name" from "${MIGRATION_TABLE}" order by "timestamp", "name"`).pluck().all();
  } catch {
    return false; // No migration table yet.
  }
  const names = Object.keys(migrations).sort();
  return recorded.length === names.length && names.every((name, i) => recorded[i] === name);
}
