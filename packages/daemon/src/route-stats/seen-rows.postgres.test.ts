import { openTestDatabase } from '@tapline/testkit/daemon';
import { type KyselyPlugin, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import type { OpenedDatabase } from '../db/open.js';
import type { StatInput } from './rollup.js';
import { addStats, SeenRows } from './writer.js';

const input = (elapsedTime: number): StatInput => ({
  sourceId: '01a1fc8d-93a2-767e-92f3-e5a71388f88b',
  routeId: '01a1fc8d-93a2-767e-92f3-200000000001',
  method: 'GET',
  domainId: '01a1fc8d-93a2-767e-92f3-000000000001',
  createdAt: '2026-11-27T08:00:30.000Z',
  status: 200,
  elapsedTime,
  requestBytes: 10,
  responseBytes: 20,
});

/** The minute, hour and day rows as PostgreSQL spells them. */
async function rowsOf({ db }: OpenedDatabase): Promise<string[]> {
  const { rows } = await sql<{ row: string }>`
    select s::text as row from route_stats s
    union all select r::text from route_rollups r order by 1`.execute(db);
  return rows.map((r) => r.row);
}

/**
 * PostgreSQL ingest locks the statistics rows it has written before without making them first
 * (decisions §20.11). That saves a statement a level for every group, and must not change a
 * number, even when such a row is gone (here deleted by hand, as the prune or a rule's move does).
 */
describe('statistics rows a daemon has seen', () => {
  const opened: OpenedDatabase[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((o) => o.close()));
  });

  /** Three groups, the rows deleted before the third; each group's statement count. */
  async function written(seen: SeenRows | undefined) {
    const o = await openTestDatabase();
    opened.push(o);
    const statements: number[] = [];
    const group = (inputs: readonly StatInput[]) =>
      o.db.transaction().execute(async (trx) => {
        // Made-up ids, with no source, route or domain behind them: foreign keys are not checked here.
        await sql`set local session_replication_role = replica`.execute(trx);
        let count = 0;
        const counting: KyselyPlugin = {
          transformQuery: (args) => ((count += 1), args.node),
          transformResult: (args) => Promise.resolve(args.result),
        };
        await addStats(trx.withPlugin(counting), o.dialect, inputs, seen);
        statements.push(count);
      });
    await group([input(10)]);
    await group([input(20), input(30)]);
    await sql`delete from route_stats`.execute(o.db);
    await sql`delete from route_rollups`.execute(o.db);
    await group([input(40)]);
    return { rows: await rowsOf(o), statements };
  }

  it('locks them at once, and makes again one that is gone, with the same numbers as without', async () => {
    const without = await written(undefined);
    const seen = await written(new SeenRows());
    expect(without.statements).toEqual([6, 6, 6]);
    expect(seen.statements).toEqual([6, 4, 8]);
    expect(seen.rows).toEqual(without.rows);
    // Three rows (minute, hour, day), each of the one entry written after the delete.
    expect(seen.rows).toHaveLength(3);
    for (const row of seen.rows) expect(row).toMatch(/,GET,01a1fc8d-93a2-767e-92f3-000000000001,2,1,40,40,10,20,/);
  });
});
