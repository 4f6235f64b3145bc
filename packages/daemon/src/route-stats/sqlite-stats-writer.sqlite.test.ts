import { openTestDatabase } from '@tapline/testkit/daemon';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import type { SqlDialect } from '../db/dialect.js';
import type { OpenedDatabase } from '../db/open.js';
import type { StatInput } from './rollup.js';
import { addStatsDirect } from './sqlite-stats-writer.js';
import { addStats, lateBeforeAt } from './writer.js';
import { totalsOf } from './rollup.js';

const SOURCE = '01a1fc8d-93a2-767e-92f3-e5a71388f88b';
const id = (prefix: string, n: number) => `01a1fc8d-93a2-767e-92f3-${prefix}${n.toString(16).padStart(8, '0')}`;

/** `count` entries over a few routes, domains, statuses and minutes of two hours, skewed latencies. */
function inputsOf(batch: number, count: number): StatInput[] {
  return Array.from({ length: count }, (_, i) => {
    const n = batch * count + i;
    return {
      sourceId: SOURCE,
      routeId: id('2000', n % 7),
      method: n % 3 === 0 ? 'POST' : 'GET',
      domainId: id('1000', n % 2),
      createdAt: new Date(Date.UTC(2026, 10, 27, 8, 50) + ((n * 37) % 20) * 60_000 + (n % 1000)).toISOString(),
      status: [200, 201, 304, 404, 500][n % 5] ?? 200,
      elapsedTime: n % 11 === 0 ? 0 : Math.round(Math.exp((n % 13) / 2) * 10) / 10,
      requestBytes: n % 4 === 0 ? 0 : 100 + n,
      responseBytes: 300 + 2 * n,
    };
  });
}

/**
 * Both statistics tables, every value with its SQL type, in key order. The ids are also read as the
 * hex of what is stored: Kysely's plugin turns 16-byte ids back into text on the way out, so a
 * row whose id was bound as text would otherwise read the same.
 */
async function statsTables({ db }: OpenedDatabase) {
  const dump = async (table: string, order: string) => {
    const info = await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(db);
    const columns = info.rows.map((c) => c.name);
    const types = columns.map((c) => `typeof("${c}")`).join(" || ',' || ");
    const raw = columns
      .filter((c) => c.endsWith('_id'))
      .map((c) => `hex("${c}")`)
      .join(" || ',' || ");
    const { rows } = await sql<Record<string, unknown>>`select *, ${sql.raw(types)} as types, ${sql.raw(
      raw,
    )} as stored_ids from ${sql.table(table)} order by ${sql.raw(order)}`.execute(db);
    return rows;
  };
  return {
    minutes: await dump('route_stats', 'traffic_source_id, minute, route_id, method, domain_id, status_class'),
    rollups: await dump('route_rollups', 'traffic_source_id, span, start, route_id, method, domain_id, status_class'),
  };
}

describe('the SQLite statistics writer (prepared statements)', () => {
  const opened: OpenedDatabase[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((o) => o.close()));
  });

  async function written(dialectOf: (o: OpenedDatabase) => SqlDialect): Promise<OpenedDatabase> {
    const o = await openTestDatabase();
    opened.push(o);
    await sql`pragma foreign_keys = off`.execute(o.db);
    // Two groups: the second adds to the rows the first made.
    for (const batch of [0, 1])
      await o.db
        .transaction()
        .execute((trx) => addStats(trx, dialectOf(o), inputsOf(batch, 300), lateBeforeAt(Date.now())));
    return o;
  }

  it('stores the very rows, numbers, sketches and SQL types that the upserts through Kysely store', async () => {
    const viaKysely = await written((o) => {
      const { statements: _direct, ...throughKysely } = o.dialect;
      return throughKysely;
    });
    const direct = await written((o) => {
      if (!o.dialect.statements) throw new Error('an SQLite database has direct statements');
      return o.dialect;
    });
    const expected = await statsTables(viaKysely);
    expect(expected.minutes.length).toBeGreaterThan(50);
    expect(expected.rollups.length).toBeGreaterThan(50);
    expect(await statsTables(direct)).toEqual(expected);
  });

  it('refuses to write outside a transaction, where each row would commit on its own', async () => {
    const o = await openTestDatabase();
    opened.push(o);
    const { statements } = o.dialect;
    if (!statements) throw new Error('an SQLite database has direct statements');
    expect(() => addStatsDirect(o.dialect, statements, totalsOf(inputsOf(0, 1)))).toThrow(/inside a transaction/);
  });
});
