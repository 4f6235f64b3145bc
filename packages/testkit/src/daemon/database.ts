import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type OpenedDatabase, openDatabase } from '@tapline/daemon';
import pg from 'pg';
import { inject } from 'vitest';
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

async function onServer<T>(run: (admin: pg.Client, server: { url: string; template: string }) => Promise<T>): Promise<T> {
  const server = inject('taplinePostgres');
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  try {
    return await run(admin, server);
  } finally {
    await admin.end();
  }
}

/**
 * A database of the test backend: on SQLite a file in a temporary folder; on PostgreSQL a new
 * database on the run's server, empty or (`migrated`) a copy of the migrated template. Each test
 * gets its own, so test files stay apart and run in parallel.
 */
export async function freshDatabase(options: { migrated?: boolean } = {}): Promise<FreshDatabase> {
  if (testBackend() === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'tapline-test-db-'));
    return { locator: join(dir, 'tapline.db'), drop: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })) };
  }
  const name = `tapline_test_${process.pid}_${randomBytes(6).toString('hex')}`;
  const url = await onServer(async (admin, server) => {
    await admin.query(options.migrated ? `create database ${name} template ${server.template}` : `create database ${name}`);
    return databaseUrl(server.url, name);
  });
  // FORCE ends connections a failed test left open.
  return { locator: url, drop: () => onServer(async (admin) => void (await admin.query(`drop database if exists ${name} with (force)`))) };
}

/**
 * A migrated database of the test backend, opened: SQLite in memory (as fast as a test can get),
 * PostgreSQL a fresh copy of the template. `close` also drops it.
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
