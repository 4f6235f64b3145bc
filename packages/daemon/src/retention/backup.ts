import { closeSync, existsSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { formatBytes } from '@tapline/shared/lean';
import Database from 'better-sqlite3';
import { ExitError } from '../exit-error.js';
import { parseLocator } from '../db/locator.js';
import { nativeBinding } from '../db/native-addon.js';

/**
 * `taplined backup FILE`: a consistent copy of a SQLite database, also while a daemon writes to it,
 * with SQLite's online backup API. After a first step the rest is copied in one step, inside one
 * read transaction: a writer in between would make SQLite start the copy again, and under steady
 * ingest it would never finish. The copy is written beside FILE and renamed when complete and
 * verified (quick_check), so FILE is never a half copy. PostgreSQL: pg_dump (docs/storage.md).
 */
export async function backupFile(database: string, target: string): Promise<string> {
  const locator = parseLocator(database);
  if (locator.backend === 'postgres')
    throw new ExitError(
      'taplined backup copies a SQLite database; back up PostgreSQL with pg_dump (see docs/storage.md)',
    );
  const source = locator.file;
  if (source === ':memory:' || !existsSync(source)) throw new ExitError(`no database at ${source}`);
  if (existsSync(target)) throw new ExitError(`${target} already exists; remove it or choose another file`);
  const partial = `${target}.partial`;
  // Owner-only from the first byte: the copy holds password hashes and the token signing key.
  closeSync(openSync(partial, 'w', 0o600));
  const started = Date.now();
  const db = new Database(source, { fileMustExist: true, nativeBinding: nativeBinding() });
  try {
    db.pragma('busy_timeout = 5000');
    await db.backup(partial, { progress: ({ remainingPages }) => Math.max(remainingPages, 1) });
    const copy = new Database(partial, { fileMustExist: true, nativeBinding: nativeBinding() });
    try {
      const verdict = copy.pragma('quick_check', { simple: true });
      if (verdict !== 'ok')
        throw new ExitError(`the copy did not verify (${String(verdict)}); ${target} was not written`);
    } finally {
      copy.close();
    }
    renameSync(partial, target);
  } catch (error) {
    for (const file of [partial, `${partial}-wal`, `${partial}-shm`]) rmSync(file, { force: true });
    if (error instanceof ExitError) throw error;
    throw new ExitError(`backup failed: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    db.close();
  }
  return `backed up ${formatBytes(statSync(target).size)} to ${target} in ${((Date.now() - started) / 1000).toFixed(1)} s`;
}
