import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Migrator, sql } from 'kysely';
import { afterEach, expect, it } from 'vitest';
import { migrationProvider } from '../db/migrations/index.js';
import { nativeBinding } from '../db/native-addon.js';
import { type OpenedDatabase, openDatabase } from '../db/open.js';

let dir: string;
let opened: OpenedDatabase;
afterEach(async () => {
  await opened.close();
  rmSync(dir, { recursive: true, force: true });
});

it('switches a database made before retention to incremental auto-vacuum, keeping its rows', async () => {
  dir = mkdtempSync(join(tmpdir(), 'tapline-retention-migration-'));
  // The file as a build before retention made it: its first page written (by WAL) without
  // auto-vacuum, which a new file now gets first (decisions §20.26).
  const before = new Database(join(dir, 'tapline.db'), { nativeBinding: nativeBinding() });
  before.pragma('journal_mode = WAL');
  before.close();
  opened = openDatabase(join(dir, 'tapline.db'));
  const migrator = new Migrator({ db: opened.db, provider: migrationProvider(opened.dialect) });
  expect((await migrator.migrateTo('2026-11-23T0600-traffic-exchange-keys')).error).toBeUndefined();
  const autoVacuum = async () =>
    (await sql<{ auto_vacuum: number }>`pragma auto_vacuum`.execute(opened.db)).rows[0]?.auto_vacuum;
  expect(await autoVacuum()).toBe(0);
  const now = '2026-11-20T10:00:00.000Z';
  await opened.db
    .insertInto('users')
    .values({ id: 'u1', email: 'ann@example.com', name: 'ann', password_hash: null, created_at: now, updated_at: now })
    .execute();

  await opened.migrate();

  expect(await autoVacuum()).toBe(2);
  expect(await opened.db.selectFrom('users').select('email').execute()).toEqual([{ email: 'ann@example.com' }]);
  const index = await sql<{
    name: string;
  }>`select name from sqlite_master where type = 'index' and name = 'webhook_deliveries_traffic'`.execute(opened.db);
  expect(index.rows).toHaveLength(1);
});
