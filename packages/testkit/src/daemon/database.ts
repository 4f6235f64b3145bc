import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type OpenedDatabase, openDatabase } from '@tapline/daemon';
import { inject } from 'vitest';
import { giveBack, takeMigrated, withClient } from '../postgres/server.js';
import { databaseUrl } from '../postgres/urls.js';

/**
 * Which engine the daemon's in-process tests run on. The `postgres` project of vitest.config.ts
 * sets it; nothing under any package's src/ reads it, only this kit.
 */
export type TestBackend = 'sqlite' | 'postgres';

export function testBackend(): TestBackend {
  return process.env.TAPLINE_TEST_BACKEND === 'postgres' ? 'postgres' : 'sqlite';
}

/** A database made for one test, and dropped again. */
export interface FreshDatabase {
  /** What `--db` would take: a SQLite file, or a PostgreSQL URL (with a password). */
  readonly locator: string;
  drop(): Promise<void>;
}

/**
 * A database of the test backend: on SQLite a file in a temporary folder; on PostgreSQL a database
 * of its own on the run's server, empty or (`migrated`) at the newest schema and with no rows.
 * Each test gets its own, so test files stay apart and run in parallel.
 */
export async function freshDatabase(options: { migrated?: boolean } = {}): Promise<FreshDatabase> {
  if (testBackend() === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'tapline-test-db-'));
    return {
      locator: join(dir, 'tapline.db'),
      drop: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })),
    };
  }
  const server = inject('taplinePostgres');
  if (options.migrated) {
    const name = await takeMigrated(server);
    return { locator: databaseUrl(server.url, name), drop: () => giveBack(server, name) };
  }
  // Named after the run's template, so that the run's end drops it even if a test does not.
  const name = `${server.template}_${randomBytes(6).toString('hex')}`;
  await withClient(server.url, (admin) => admin.query(`create database ${name}`));
  // FORCE ends connections a failed test left open.
  return {
    locator: databaseUrl(server.url, name),
    drop: () =>
      withClient(server.url, async (admin) => void (await admin.query(`drop database if exists ${name} with (force)`))),
  };
}

/**
 * A migrated database of the test backend, opened: SQLite in memory (as fast as a test can get),
 * PostgreSQL an empty one of its own. `close` also drops it (or gives it back, emptied).
 */
export async function openTestDatabase(options: { pool?: number } = {}): Promise<OpenedDatabase> {
  if (testBackend() === 'sqlite') {
    const opened = openDatabase(':memory:');
    await opened.migrate();
    return opened;
  }
  const fresh = await freshDatabase({ migrated: true });
  const opened = openDatabase(fresh.locator, { pool: options.pool ?? 4 });
  await opened.migrate();
  return {
    ...opened,
    async close() {
      await opened.close();
      await fresh.drop();
    },
  };
}
