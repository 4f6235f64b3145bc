import { contract, createClient, type TaplineClient } from '@tapline/shared';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterEach, expect, it } from 'vitest';
import { createSource, type FreshDatabase, freshDatabase, manualClock, startHarness } from '@tapline/testkit/daemon';
import { MigrationError } from '../db/migrate.js';
import { openDatabase } from '../db/open.js';
import { recordSent, sentEntries } from './exactness.fixture.js';

const MIGRATION = '2026-11-28T0100-route-rollups';
const clock = manualClock('2026-05-07T12:00:00.000Z');
let fresh: FreshDatabase | undefined;
afterEach(async () => fresh?.drop());

/** Windows that read day, hour and minute rows once the rollups exist, and minutes only before. */
const ASKED: {
  since: string;
  until: string;
  by: 'route' | 'route,method' | 'status';
  series?: '1';
  bucket?: string;
}[] = [
  { since: '2026-05-03T22:00:00Z', until: '2026-05-06T22:00:00Z', by: 'route' },
  { since: '2026-05-04T00:00:00Z', until: '2026-05-05T00:00:00Z', by: 'route,method' },
  { since: '2026-05-04T09:17:00Z', until: '2026-05-05T13:41:00Z', by: 'status', series: '1', bucket: '1h' },
];

/**
 * A database from before hour and day rows (its minute rows written, the rollups' table and its
 * migration record gone) is upgraded by folding the minute rows; a fold that stops half-way
 * leaves nothing behind and runs again whole at the next start.
 */
it('folds the minute rows of an existing database into hour and day rows, again whole after a stopped upgrade', async () => {
  fresh = await freshDatabase({ migrated: true });
  const sent = fc.sample(sentEntries, { numRuns: 1, seed: 26 })[0] ?? [];
  let h = await startHarness({
    database: fresh.locator,
    clock,
    pruner: { start: false },
    routeBackfill: { start: false },
  });
  const user = await h.user();
  const sourceId = (await createSource(user.client)).id;
  await recordSent(h.url, user.token, sourceId, sent);
  const ask = (client: TaplineClient) =>
    Promise.all(ASKED.map((query) => client.call(contract.getStats, { params: { trafficSourceId: sourceId }, query })));
  const before = await ask(user.client);
  expect(before[0]?.data.reduce((n, g) => n + g.count, 0)).toBe(sent.length);
  await h.close();

  const opened = openDatabase(fresh.locator);
  const raw = opened.db.withoutPlugins();
  await sql`drop table route_rollups`.execute(raw);
  // It and the migrations after it, as a database from before it has none of them.
  await sql`delete from kysely_migration where name >= ${MIGRATION}`.execute(raw);
  await sql`drop table route_stats_epochs`.execute(raw);
  // A minute row the fold cannot read stops it half-way through.
  const { rows } = await sql<{
    minute: string;
    sketch: Uint8Array;
  }>`select minute, sketch from route_stats order by minute desc limit 1`.execute(raw);
  const last = rows[0];
  if (!last) throw new Error('no minute rows were written');
  await sql`update route_stats set sketch = ${Uint8Array.from([1, 0x80])} where minute = ${last.minute}`.execute(raw);
  await expect(opened.migrate()).rejects.toThrow(MigrationError);
  const applied = await sql<{ name: string }>`select name from kysely_migration where name = ${MIGRATION}`.execute(raw);
  expect(applied.rows).toEqual([]);
  await expect(sql`select count(*) from route_rollups`.execute(raw)).rejects.toThrow(/route_rollups/);

  await sql`update route_stats set sketch = ${last.sketch} where minute = ${last.minute}`.execute(raw);
  await opened.migrate();
  await opened.close();

  h = await startHarness({ database: fresh.locator, clock, pruner: { start: false }, routeBackfill: { start: false } });
  const after = await ask(createClient({ baseUrl: h.url, token: user.token }));
  await h.close();
  expect(after).toEqual(before);
});
