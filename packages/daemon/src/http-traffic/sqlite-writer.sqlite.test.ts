import { ComposeRecord } from '@tapline/shared';
import { realisticRecord } from '@tapline/testkit';
import { openTestDatabase } from '@tapline/testkit/daemon';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import type { OpenedDatabase } from '../db/open.js';
import { prepareRecord } from '../ingest/prepare.js';
import { createRedactor } from '../ingest/redact.js';
import { rowsOf } from '../ingest/rows.js';
import { createSqliteTrafficWriter } from './sqlite-writer.js';
import type { NewTrafficRow } from './table.js';
import { createTrafficWriter, type TrafficWriter } from './writer.js';

const SOURCE = '01a1fc8d-93a2-767e-92f3-e5a71388f88b';
const DOMAINS = ['01a1fc8d-93a2-767e-92f3-000000000001', '01a1fc8d-93a2-767e-92f3-000000000002'];
const redactor = createRedactor({ enabled: true, extraKeys: [] });

/**
 * Rows of `count` realistic records as ingest makes them (ids made up, in order): compressible
 * and tiny exchanges, null bodies, with and without a user, two domains, a dozen pathnames, so
 * the count rollup gets repeated keys.
 */
function rowsOfBatch(batch: number, count: number): NewTrafficRow[] {
  return Array.from({ length: count }, (_, i) => {
    const { record } = prepareRecord(ComposeRecord.parse(realisticRecord(batch * count + i, SOURCE)), redactor);
    const n = batch * count + i;
    const hex = (k: number) => k.toString(16).padStart(12, '0');
    const filed = {
      domainId: DOMAINS[n % 2] ?? '',
      pathnameId: `01a1fc8d-93a2-767e-92f3-1000${hex(n % 12).slice(4)}`,
      route: { id: `01a1fc8d-93a2-767e-92f3-2000${hex(n % 5).slice(4)}`, template: '/t' },
    };
    const id = `01a1fc8d-93a2-767e-92f3-${hex(n + 1)}`;
    return rowsOf(SOURCE, record, filed, '2026-11-27T08:00:00.000Z', id, false).row;
  });
}

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
