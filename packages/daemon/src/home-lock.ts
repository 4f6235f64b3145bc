import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { endpointFile, isRecord } from '@tapline/shared/lean';
import Database from 'better-sqlite3';
import { nativeBinding } from './db/native-addon.js';

/** The lock of one home: released when the daemon stops, and by the kernel when it dies. */
export interface HomeLock {
  release(): void;
}

/** Another daemon holds the home; the message names it for the person at the shell. */
export class HomeInUse extends Error {}

export const lockFile = (home: string) => join(home, 'daemon.lock');

/** Where SQLite keeps `user_version` in a database file's header (the file format's offsets 60 to 63). */
const USER_VERSION_OFFSET = 60;

/**
 * The holder's pid, read from the lock database's header as plain bytes: SQLite's own reads wait
 * on the holder's exclusive lock, the file's bytes do not (file locks are advisory). Undefined in
 * the instant between the holder taking the lock and writing its pid.
 */
function holderPid(file: string): number | undefined {
  const header = Buffer.alloc(USER_VERSION_OFFSET + 4);
  const fd = openSync(file, 'r');
  try {
    if (readSync(fd, header, 0, header.length, 0) < header.length) return undefined;
  } finally {
    closeSync(fd);
  }
  const pid = header.readUInt32BE(USER_VERSION_OFFSET);
  return pid > 0 ? pid : undefined;
}

/** `daemon.json` as the daemon writes it; read here only when another daemon holds the home. */
const isEndpoint = (value: unknown): value is { url: string; pid: number } =>
  isRecord(value) && typeof value.url === 'string' && typeof value.pid === 'number';

/** The address `pid` wrote to `<home>/daemon.json`, once it listens. */
function addressOf(home: string, pid: number | undefined): string | undefined {
  try {
    const written: unknown = JSON.parse(readFileSync(endpointFile(home), 'utf8'));
    return isEndpoint(written) && written.pid === pid ? written.url : undefined;
  } catch {
    return undefined;
  }
}

function inUse(home: string): HomeInUse {
  const pid = holderPid(lockFile(home));
  const address = addressOf(home, pid);
  const who =
    pid === undefined
      ? 'another taplined'
      : `another taplined (pid ${pid}, ${address ? `listening on ${address}` : 'still starting'})`;
  return new HomeInUse(`${who} uses the home ${home}; stop it, or give this daemon a --home of its own`);
}

/**
 * Takes `<home>/daemon.lock` for as long as this process runs, or throws HomeInUse. The lock is
 * SQLite's on a small database of its own, in exclusive locking mode: a write takes an exclusive
 * file lock that the connection keeps until it closes, and the kernel drops it when the process
 * dies, however it dies, so no crash leaves it stale and no pid has to be checked for liveness.
 * A process that loses the race gets SQLITE_BUSY at once (no busy timeout). The write is the
 * holder's pid, into the header's `user_version`, so the refused daemon can name it.
 */
export function lockHome(home: string): HomeLock {
  const file = lockFile(home);
  closeSync(openSync(file, 'a', 0o600));
  const db = new Database(file, { timeout: 0, nativeBinding: nativeBinding() });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.pragma(`user_version = ${process.pid}`);
  } catch (error) {
    db.close();
    if (error instanceof Database.SqliteError && error.code === 'SQLITE_BUSY') throw inUse(home);
    throw error;
  }
  return { release: () => db.close() };
}
