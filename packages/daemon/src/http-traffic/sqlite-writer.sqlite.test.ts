import { openTestDatabase } from '@tapline/testkit/daemon';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import type { OpenedDatabase } from '../db/open.js';
import { realisticRows as rowsOfBatch } from './realistic-rows.fixture.js';
import { createSqliteTrafficWriter } from './sqlite-writer.js';
import { createTrafficWriter, type TrafficWriter } from './writer.js';

/** Every stored value of the written tables with its SQL type, in a fixed order. */
async function storedTables({ db }: OpenedDatabase) {
  const dump = async (table: string, order: string) => {
    const { rows } = await sql<
      Record<string, unknown>
    >`select * from ${sql.table(table)} order by ${sql.raw(order)}`.execute(db);
    const types = await sql<Record<string, unknown>>`select * from pragma_table_info(${table})`.execute(db);
    const columns = types.rows.map((c) => String(c['name']));
    const typed = await sql<{
      t: string;
    }>`select ${sql.raw(columns.map((c) => `typeof("${c}")`).join(" || ',' || "))} as t from ${sql.table(table)} order by ${sql.raw(order)}`.execute(
      db,
    );
    return { rows, types: typed.rows.map((r) => r.t) };
  };
  return {
    traffic: await dump('http_traffic', 'stream_seq'),
    counts: await dump('traffic_counts', 'traffic_source_id, pathname_id, method, status'),
    sequence: await dump('stream_sequence', 'name'),
    dictionaries: (await dump('payload_dictionaries', 'id')).rows.map((r) => r['data']),
  };
}

describe('the SQLite traffic writer (prepared statements)', () => {
  const opened: OpenedDatabase[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((o) => o.close()));
  });

  /** A database that takes made-up ids (no source, names or routes behind them), written by `writer`. */
  async function written(make: (o: OpenedDatabase) => TrafficWriter): Promise<OpenedDatabase> {
    const o = await openTestDatabase();
    opened.push(o);
    await sql`pragma foreign_keys = off`.execute(o.db);
    const writer = make(o);
    // Two groups: the second updates the count rows and the stream counter the first made.
    for (const batch of [0, 1]) {
      const rows = rowsOfBatch(batch, 60);
      await o.db.transaction().execute(async (trx) => {
        await writer.insertExchanges(trx, rows);
        return writer.insertTraffic(trx, rows);
      });
    }
    return o;
  }

  it('stores the very rows, values and SQL types that the writer through Kysely stores', async () => {
    const viaKysely = await written((o) => createTrafficWriter(o.dialect.payloads));
    const direct = await written((o) => {
      if (!o.dialect.statements) throw new Error('an SQLite database has direct statements');
      return createSqliteTrafficWriter(o.dialect, o.dialect.statements);
    });
    const expected = await storedTables(viaKysely);
    expect(expected.traffic.rows).toHaveLength(120);
    expect(expected.traffic.types.some((t) => t.includes('blob'))).toBe(true); // compressed exchanges and compact ids
    expect(expected.counts.rows.length).toBeGreaterThan(1);
    expect(await storedTables(direct)).toEqual(expected);
  });

  it('refuses to write outside a transaction, where each row would commit on its own', async () => {
    const o = await openTestDatabase();
    opened.push(o);
    if (!o.dialect.statements) throw new Error('an SQLite database has direct statements');
    const writer = createSqliteTrafficWriter(o.dialect, o.dialect.statements);
    await expect(writer.insertTraffic(o.db, rowsOfBatch(0, 1))).rejects.toThrow(/inside a transaction/);
  });
});
