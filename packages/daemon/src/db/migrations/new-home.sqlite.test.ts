import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Migrator } from 'kysely';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { nativeBinding } from '../native-addon.js';
import { openSqlite } from '../sqlite.js';
import { migrationProvider, migrations } from './index.js';
import { allMigrated, copyNewHome, startFromSchema, TEMPLATE_TIME } from './new-home.js';

/** The script the daemon's build makes its new home with (dist/new-home.db). */
const TEMPLATE_SCRIPT = join(import.meta.dirname, '../../../../../scripts/new-home-template.mjs');

/** Everything a database is made of, read back: its objects in order, its pragmas, every row. */
function contentsOf(file: string) {
  const db = new Database(file, { readonly: true, nativeBinding: nativeBinding() });
  try {
    const objects = db
      .prepare<[], { type: string; name: string; tbl_name: string; sql: string | null }>(
        'select type, name, tbl_name, sql from sqlite_master order by rowid',
      )
      .all();
    const rows = Object.fromEntries(
      objects
        .filter((o) => o.type === 'table' && !o.name.startsWith('sqlite_stat'))
        .map((o) => [o.name, db.prepare(`select * from "${o.name}" order by 1`).all()]),
    );
    const pragmas = ['auto_vacuum', 'user_version', 'page_size', 'journal_mode', 'encoding'].map((p) =>
      db.pragma(p, { simple: true }),
    );
    return { objects, rows, pragmas };
  } finally {
    db.close();
  }
}

describe('a new SQLite home', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tapline-new-home-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function made(name: string, fromSchema: boolean, template?: string): Promise<string> {
    const file = join(dir, name);
    const opened = openSqlite(file, { fromSchema, newHome: () => template });
    await opened.migrate();
    await opened.close();
    return file;
  }

  /** Runs a later version's one new migration on `file` with Kysely's Migrator; its results, or its error. */
  async function runsLaterMigration(file: string): Promise<unknown> {
    const opened = openSqlite(file);
    try {
      const provider = migrationProvider(opened.dialect);
      const { error, results } = await new Migrator({
        db: opened.db.withoutPlugins(),
        provider: {
          getMigrations: async () => ({
            ...(await provider.getMigrations()),
            '2099-01-01T0000-later': { up: (db) => db.schema.createTable('later').addColumn('x', 'text').execute() },
          }),
        },
      }).migrateToLatest();
      if (error instanceof Error) throw error;
      expect(error).toBeUndefined();
      return results?.map((r) => [r.migrationName, r.status]);
    } finally {
      await opened.close();
    }
  }

  it('starts from the schema and is the very database the migrations make, bookkeeping included', async () => {
    const byMigrations = contentsOf(await made('migrations.db', false));
    const bySchema = contentsOf(await made('schema.db', true));
    // Every migration is recorded as done, in order; only the times they ran differ.
    const done = (rows: unknown) =>
      (rows as { name: string; timestamp: string }[]).map(({ name, timestamp }) => ({ name, ran: typeof timestamp }));
    expect(done(bySchema.rows['kysely_migration'])).toEqual(done(byMigrations.rows['kysely_migration']));
    expect(done(bySchema.rows['kysely_migration']).map((m) => m.name)).toEqual(Object.keys(migrations));
    // Made in one transaction: one time for all (the migrations ran one after another).
    expect(new Set((bySchema.rows['kysely_migration'] as { timestamp: string }[]).map((m) => m.timestamp)).size).toBe(
      1,
    );
    const withoutTimes = (c: ReturnType<typeof contentsOf>) => ({ ...c, rows: { ...c.rows, kysely_migration: [] } });
    expect(withoutTimes(bySchema)).toEqual(withoutTimes(byMigrations));
    expect(byMigrations.pragmas[0]).toBe(2); // incremental auto-vacuum, which the pruner gives pages back with
  });

  describe("copied from the build's new home", () => {
    let template: string;
    beforeEach(() => {
      template = join(dir, 'new-home.db');
      execFileSync(process.execPath, [TEMPLATE_SCRIPT, template]);
    });
    const stamps = (file: string) => contentsOf(file).rows['kysely_migration'] as { name: string; timestamp: string }[];
    /** A row only the template has, which shows which way a home was made. */
    function markTemplate(): void {
      const db = new Database(template, { nativeBinding: nativeBinding() });
      db.prepare("insert into settings (key, value) values ('made_by', 'the template')").run();
      db.close();
    }
    const settingsOf = (file: string) => contentsOf(file).rows['settings'];
    const leftCopies = () => readdirSync(dir).filter((n) => n.includes('.new-'));

    it('is the very database the migrations make, its migrations recorded at its own time', async () => {
      const byMigrations = contentsOf(await made('migrations.db', false));
      const before = new Date().toISOString();
      const copied = await made('copied.db', true, template);
      const after = new Date().toISOString();
      const withoutTimes = (c: ReturnType<typeof contentsOf>) => ({ ...c, rows: { ...c.rows, kysely_migration: [] } });
      expect(withoutTimes(contentsOf(copied))).toEqual(withoutTimes(byMigrations));
      expect(stamps(copied).map((m) => m.name)).toEqual(Object.keys(migrations));
      // Restamped in one statement at this home's first open, not the build's TEMPLATE_TIME.
      const times = new Set(stamps(copied).map((m) => m.timestamp));
      expect(times.size).toBe(1);
      const [time] = times;
      expect(time! >= before && time! <= after).toBe(true);
      // Owner-only as any new database, and no copy left under another name.
      expect(statSync(copied).mode & 0o777).toBe(0o600);
      expect(leftCopies()).toEqual([]);
    });

    it('is a copy of the template, not a database made from the schema', async () => {
      markTemplate();
      const file = await made('copied.db', true, template);
      expect(settingsOf(file)).toEqual([{ key: 'made_by', value: 'the template' }]);
    });

    it('is the same file from every build of the same code', () => {
      const again = join(dir, 'again.db');
      execFileSync(process.execPath, [TEMPLATE_SCRIPT, again]);
      expect(readFileSync(again).equals(readFileSync(template))).toBe(true);
    });

    it('copies nothing over a database, nor beside the WAL or journal of an earlier one', () => {
      const existing = join(dir, 'existing.db');
      writeFileSync(existing, 'not replaced');
      expect(copyNewHome(existing, template)).toBe(false);
      expect(readFileSync(existing, 'utf8')).toBe('not replaced');
      for (const left of ['-wal', '-journal']) {
        const file = join(dir, `left${left}.db`);
        writeFileSync(`${file}${left}`, 'an earlier database of this name');
        // SQLite would replay a WAL left over into a copy that says WAL in its header.
        expect(copyNewHome(file, template)).toBe(false);
        expect(existsSync(file)).toBe(false);
      }
      expect(leftCopies()).toEqual([]);
    });

    it('leaves a path it cannot copy to for the open to name, the database and not the copy', async () => {
      const missing = join(dir, 'missing', 'x.db');
      expect(copyNewHome(missing, template)).toBe(false);
      expect(() => openSqlite(missing, { newHome: () => template })).toThrow(`open '${missing}'`);
      const notFolder = join(dir, 'a-file');
      writeFileSync(notFolder, '');
      expect(() => openSqlite(join(notFolder, 'x.db'), { newHome: () => template })).toThrow(
        `ENOTDIR: not a directory, open '${join(notFolder, 'x.db')}'`,
      );
      // A name the database (and its -journal) can have but the copy's, 17 characters longer, cannot:
      // made from the schema.
      markTemplate();
      const long = await made(`${'a'.repeat(245 - '.db'.length)}.db`, true, template);
      expect(stamps(long).map((m) => m.name)).toEqual(Object.keys(migrations));
      expect(settingsOf(long)).toEqual([]);
      expect(leftCopies()).toEqual([]);
    });

    it('makes the database from the schema where a journal is left, or the template is no database', async () => {
      markTemplate();
      const file = join(dir, 'fallback.db');
      writeFileSync(`${file}-journal`, '');
      await made('fallback.db', true, template);
      expect(stamps(file).map((m) => m.name)).toEqual(Object.keys(migrations));
      expect(settingsOf(file)).toEqual([]);
      writeFileSync(template, 'not a database');
      const other = await made('other.db', true, template);
      expect(stamps(other).map((m) => m.name)).toEqual(Object.keys(migrations));
    });

    it("takes a later version's migrations on a copy whose first start ended before the restamp", async () => {
      const file = join(dir, 'unstamped.db');
      expect(copyNewHome(file, template)).toBe(true);
      expect(new Set(stamps(file).map((m) => m.timestamp))).toEqual(new Set([TEMPLATE_TIME]));
      // On a machine whose clock is behind the build's: the later migration is recorded at that time,
      // which must still sort after the copy's own records (Kysely's Migrator checks the order).
      vi.useFakeTimers({ toFake: ['Date'] });
      try {
        vi.setSystemTime(new Date('2001-01-01T00:00:00.000Z'));
        await expect(runsLaterMigration(file)).resolves.toEqual([['2099-01-01T0000-later', 'Success']]);
      } finally {
        vi.useRealTimers();
      }
    });
  });

  it('leaves a database that has anything in it to the migrations', () => {
    const file = join(dir, 'existing.db');
    const db = new Database(file, { nativeBinding: nativeBinding() });
    try {
      db.exec('create table mine (x text)');
      expect(startFromSchema(db, new Date().toISOString())).toBe(false);
      expect(db.prepare('select count(*) from sqlite_master').pluck().get()).toBe(1);
    } finally {
      db.close();
    }
  });

  it("runs a later version's new migrations on a home made from the schema", async () => {
    const file = await made('schema.db', true);
    await expect(runsLaterMigration(file)).resolves.toEqual([['2099-01-01T0000-later', 'Success']]);
  });

  it('knows a home with every migration recorded, and leaves any other to the Migrator', async () => {
    const file = await made('schema.db', true);
    const db = new Database(file, { nativeBinding: nativeBinding() });
    try {
      expect(allMigrated(db)).toBe(true);
      // Recorded out of order (a clock set back between two upgrades): the Migrator refuses such a
      // home, so it must see it.
      const last = Object.keys(migrations).sort().at(-1);
      const stamp = db.prepare('select timestamp from kysely_migration where name = ?').pluck();
      const was = stamp.get(last);
      db.prepare('update kysely_migration set timestamp = ? where name = ?').run('1999-01-01T00:00:00.000Z', last);
      expect(allMigrated(db)).toBe(false);
      db.prepare('update kysely_migration set timestamp = ? where name = ?').run(was, last);
      expect(allMigrated(db)).toBe(true);
      db.prepare('insert into kysely_migration (name, timestamp) values (?, ?)').run('2099-01-01T0000-unknown', 'now');
      expect(allMigrated(db)).toBe(false);
      db.prepare('delete from kysely_migration where name in (?, ?)').run(
        '2099-01-01T0000-unknown',
        Object.keys(migrations).at(-1),
      );
      expect(allMigrated(db)).toBe(false);
      db.exec('drop table kysely_migration');
      expect(allMigrated(db)).toBe(false);
    } finally {
      db.close();
    }
  });
});
