import { Migrator, sql } from 'kysely';
import { expect, it } from 'vitest';
import { getTrafficRecord, listTraffic } from '../http-traffic/repo.js';
import { checkDatabase } from '../retention/check.js';
import { MigrationError } from './migrate.js';
import { migrationProvider } from './migrations/index.js';
import { asWritten, eachFreshDatabase, id, readBeforeRoutes, SOURCE, seedThreeTables } from '@tapline/testkit/daemon';

// SQLite only: PostgreSQL keeps text ids (docs/storage.md, "Ids").
const database = eachFreshDatabase();

const ENTRIES = 6_000;
const storedKinds = async (table: string, column: string) =>
  (
    await sql<{
      kind: string;
      n: number;
    }>`select typeof(${sql.ref(column)}) || ':' || length(${sql.ref(column)}) as kind, count(*) as n from ${sql.table(table)} group by kind order by kind`.execute(
      database().db.withoutPlugins(),
    )
  ).rows;

it('stores every id as its 16 bytes, resumes an interrupted upgrade, and reads back every field unchanged', async () => {
  const opened = database();
  await seedThreeTables(opened, ENTRIES);
  const migrator = new Migrator({ db: opened.db.withoutPlugins(), provider: migrationProvider(opened.dialect) });
  expect((await migrator.migrateTo('2026-11-25T0100-compact-storage')).error).toBeUndefined();
  // Every 7th entry's record, field by field (all of them took a minute), and a filtered list page.
  const ids = Array.from({ length: ENTRIES / 7 }, (_, n) => id(n * 7, 0));
  const before = await readBeforeRoutes(opened, () =>
    Promise.all(ids.map((i) => getTrafficRecord(asWritten(opened), SOURCE, i))),
  );
  const listBefore = await readBeforeRoutes(
    opened,
    async () => (await listTraffic(asWritten(opened), SOURCE, { level: 'FATAL' }, { page: 2, limit: 50 })).data,
  );

  // `taplined check` reads a database as it is: one this version has not upgraded has text ids.
  await sql`update http_traffic set request_headers = '{broken' where id = ${id(5_600, 0)}`.execute(
    opened.db.withoutPlugins(),
  );
  expect(await checkDatabase(opened.db, opened.dialect)).toEqual([
    '1 entries have header sets that do not read back as JSON',
  ]);
  await sql`update http_traffic set request_headers = '{}' where id = ${id(5_600, 0)}`.execute(
    opened.db.withoutPlugins(),
  );
  const fixed = await readBeforeRoutes(opened, () => getTrafficRecord(asWritten(opened), SOURCE, id(5_600, 0)));
  before[ids.indexOf(id(5_600, 0))] = fixed;

  // A crash in the second batch of entries: the first batch stays converted, the rest text.
  await sql`create trigger stop_upgrade before update on http_traffic when old.id = ${sql.lit(id(5_500, 0))} begin select raise(abort, 'interrupted'); end`.execute(
    opened.db,
  );
  await expect(opened.migrate()).rejects.toThrow(MigrationError);
  expect(await storedKinds('http_traffic', 'id')).toEqual([
    { kind: 'blob:16', n: 5_000 },
    { kind: 'text:36', n: ENTRIES - 5_000 },
  ]);

  await sql`drop trigger stop_upgrade`.execute(opened.db);
  await opened.migrate();
  for (const [table, column] of [
    ['http_traffic', 'id'],
    ['http_traffic', 'traffic_source_id'],
    ['http_traffic', 'pathname_id'],
    ['traffic_sources', 'id'],
    ['domains', 'id'],
  ] as const) {
    expect((await storedKinds(table, column)).map((k) => k.kind)).toEqual(['blob:16']);
  }
  // A made-up id ('u1', the fixture's user) is no UUID: it stays the text it was.
  expect(await storedKinds('users', 'id')).toEqual([{ kind: 'text:2', n: 1 }]);
  expect(await Promise.all(ids.map((i) => getTrafficRecord(opened, SOURCE, i)))).toEqual(before);
  expect((await listTraffic(opened, SOURCE, { level: 'FATAL' }, { page: 2, limit: 50 })).data).toEqual(listBefore);
  expect((await sql`pragma foreign_key_check`.execute(opened.db)).rows).toEqual([]);
  expect(await checkDatabase(opened.db, opened.dialect)).toEqual([]);
});
