import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { copyOfDaemonBuild, startDaemon, tempHome } from './support/binaries.js';

/**
 * A first start copies the new home the build made (dist/new-home.db, decisions §20.40) rather
 * than making its database statement by statement; a build without that file makes it from the
 * schema, with the same result.
 */

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

/** Starts the build at `entry` on a new home, answers /healthz, stops; returns the home's database rows. */
async function firstStart(entry: string) {
  const home = tempHome();
  cleanups.push(() => home.remove());
  const startedAt = new Date().toISOString();
  const daemon = await startDaemon(home.path, ['--log-level', 'info'], {}, entry);
  cleanups.push(() => void daemon.kill());
  expect((await fetch(`${daemon.url}/healthz`)).status).toBe(200);
  // The first start's token works: the local user was made in the copied database.
  const sources = await fetch(`${daemon.url}/traffic-source`, { headers: { authorization: `Bearer ${daemon.token}` } });
  expect(sources.status).toBe(200);
  expect(await daemon.stop()).toBe(0);
  expect(String((await daemon.process).stderr)).not.toMatch(/"level":(50|60)/);

  const file = join(home.path, 'tapline.db');
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(readdirSync(home.path).filter((n) => n.includes('.new-'))).toEqual([]);
  const db = new Database(file, { readonly: true });
  try {
    return {
      startedAt,
      migrations: db.prepare('select name, timestamp from kysely_migration order by name').all() as {
        name: string;
        timestamp: string;
      }[],
      settings: db.prepare('select key from settings order by key').pluck().all(),
      objects: db
        .prepare("select type, name, sql from sqlite_master where name not like 'sqlite_stat%' order by name")
        .all(),
      pragmas: ['auto_vacuum', 'journal_mode'].map((p) => db.pragma(p, { simple: true })),
    };
  } finally {
    db.close();
  }
}

it("copies the build's new home on a first start, and makes the same database without it", async () => {
  const build = copyOfDaemonBuild('dist-new-home-');
  cleanups.push(() => build.remove());
  const template = join(build.path, 'new-home.db');
  expect(existsSync(template)).toBe(true);
  // A row only this template has shows that the daemon copied it.
  const marked = new Database(template);
  marked.prepare("insert into settings (key, value) values ('made_by', 'the template')").run();
  marked.close();
  const copied = await firstStart(build.entry);
  expect(copied.settings).toContain('made_by');
  // Recorded at the home's first start, not at the build's time.
  expect(new Set(copied.migrations.map((m) => m.timestamp)).size).toBe(1);
  expect(copied.migrations[0]!.timestamp >= copied.startedAt).toBe(true);
  expect(copied.pragmas).toEqual([2, 'wal']);

  rmSync(template);
  const made = await firstStart(build.entry);
  expect(made.settings).not.toContain('made_by');
  expect(made.objects).toEqual(copied.objects);
  expect(made.migrations.map((m) => m.name)).toEqual(copied.migrations.map((m) => m.name));
  expect(made.pragmas).toEqual(copied.pragmas);
});
