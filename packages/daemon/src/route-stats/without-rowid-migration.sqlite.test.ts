import { contract, createClient } from '@tapline/shared';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterEach, expect, it } from 'vitest';
import { createSource, type FreshDatabase, freshDatabase, manualClock, startHarness } from '@tapline/testkit/daemon';
import { openDatabase } from '../db/open.js';
import { recordSent, sentEntries } from './exactness.fixture.js';

const MIGRATION = '2026-11-28T0200-stats-without-rowid';
const TABLES = ['route_stats', 'route_rollups'];
const clock = manualClock('2026-05-07T12:00:00.000Z');
let fresh: FreshDatabase | undefined;
afterEach(async () => fresh?.drop());

/**
 * A database whose statistics tables are rowid tables (as before the migration) is upgraded to
 * `without rowid` tables holding the same rows: the numbers read before and after are the same.
 */
it('rebuilds the statistics tables without rowid, keeping every row', async () => {
  fresh = await freshDatabase({ migrated: true });
  const sent = fc.sample(sentEntries, { numRuns: 1, seed: 27 })[0] ?? [];
  let h = await startHarness({
    database: fresh.locator,
    clock,
    pruner: { start: false },
    routeBackfill: { start: false },
  });
  const user = await h.user();
  const sourceId = (await createSource(user.client)).id;
  await recordSent(h.url, user.token, sourceId, sent, sent.length);
  const ask = (client: ReturnType<typeof createClient>) =>
    Promise.all(
      [
        { since: '2026-05-01T00:00:00Z', until: '2026-05-08T00:00:00Z', by: 'route' as const },
        { since: '2026-05-04T09:17:00Z', until: '2026-05-05T13:41:00Z', by: 'status' as const, series: '1' as const },
      ].map((query) => client.call(contract.getStats, { params: { trafficSourceId: sourceId }, query })),
    );
  const before = await ask(user.client);
  expect(before[0]?.data.reduce((n, g) => n + g.count, 0)).toBe(sent.length);
  await h.close();

  // The tables as the migrations before this one made them: rowid tables.
  const opened = openDatabase(fresh.locator);
  const raw = opened.db.withoutPlugins();
  const createOf = async (table: string) =>
    (await sql<{ sql: string }>`select sql from sqlite_master where name = ${table}`.execute(raw)).rows[0]?.sql ?? '';
  for (const table of TABLES) {
    const create = await createOf(table);
    expect(create).toMatch(/without rowid$/i);
    await sql.raw(create.replace(`"${table}"`, '"old"').replace(/ without rowid$/i, '')).execute(raw);
    await sql.raw(`insert into "old" select * from "${table}"`).execute(raw);
    await sql.raw(`drop table "${table}"`).execute(raw);
    await sql.raw(`alter table "old" rename to "${table}"`).execute(raw);
    expect(await createOf(table)).not.toMatch(/without rowid/i);
  }
  // It and the migrations after it, as a database from before it has none of them.
  await sql`delete from kysely_migration where name >= ${MIGRATION}`.execute(raw);
  await sql`drop table route_stats_epochs`.execute(raw);
  await opened.migrate();
  for (const table of TABLES) expect(await createOf(table)).toMatch(/without rowid$/i);
  await opened.close();

  h = await startHarness({ database: fresh.locator, clock, pruner: { start: false }, routeBackfill: { start: false } });
  const after = await ask(createClient({ baseUrl: h.url, token: user.token }));
  await h.close();
  expect(after).toEqual(before);
});
