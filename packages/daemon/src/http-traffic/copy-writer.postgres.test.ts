import { openTestDatabase } from '@tapline/testkit/daemon';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import type { OpenedDatabase } from '../db/open.js';
import { realisticRows } from './realistic-rows.fixture.js';
import type { NewTrafficRow } from './table.js';
import { COPY_FROM_ROWS, createTrafficWriter, type TrafficWriter } from './writer.js';

/** What COPY's formats treat specially, and what is only large or unusual: each a value of its own. */
const AWKWARD = [
  'back\\slash \\N \\. \\x41 ends in a backslash\\',
  'tab\there, line\nbreak, carriage\rreturn, \r\n both',
  // Each of the text format's escapes alone in a value, and a value that is only one.
  'a lone carriage\rreturn',
  'a lone\ttab',
  'a lone line\nfeed',
  '\\',
  '"quoted", with a comma, ""doubled"" and a lone "',
  '',
  '\\N',
  '\\.',
  'ünïcödé, 日本語, עברית, emoji 🧪🚀, combining e\u0301, zero\u200bwidth, \u2028separator',
  '{"json":"with \\"escapes\\" and \\\\ and \\u0041"}',
];
/** One body of 2 MiB, in the fourth row of each group. */
const LARGE = 'x'.repeat(2 * 1024 * 1024);

/**
 * Rows of `count` realistic records as ingest makes them (made-up ids, in order), then the awkward
 * values above in every text column that takes any text, and nulls where a column allows them.
 */
function rowsOfBatch(batch: number, count: number): NewTrafficRow[] {
  return realisticRows(batch, count).map((row, i) => {
    const n = batch * count + i;
    const awkward = (k: number) => AWKWARD[(n + k) % AWKWARD.length] ?? '';
    if (i % 3 === 0) {
      row.request_body = awkward(0);
      row.response_body = awkward(1);
      row.request_headers = awkward(2);
      row.traffic_user_id = awkward(3);
      row.route = awkward(4);
      if (i === 3) row.response_body = LARGE;
    } else if (i % 3 === 1) {
      row.request_body = null;
      row.response_body = null;
      row.traffic_user_id = null;
      row.route = null;
    }
    return row;
  });
}

/** Every stored row as PostgreSQL spells it (each column's own text output), and the columns' types. */
async function stored({ db }: OpenedDatabase) {
  const { rows } = await sql<{ row: string }>`select t::text as row from http_traffic t order by stream_seq`.execute(
    db,
  );
  const counts = await sql<{ row: string }>`select c::text as row from traffic_counts c order by c::text`.execute(db);
  const sequence = await sql<{ row: string }>`select s::text as row from stream_sequence s`.execute(db);
  return { traffic: rows.map((r) => r.row), counts: counts.rows.map((r) => r.row), sequence: sequence.rows };
}

describe('the PostgreSQL traffic writer, by COPY', () => {
  const opened: OpenedDatabase[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((o) => o.close()));
  });

  /** A fresh database, written by `writer` in two groups of `count` entries each. */
  async function written(make: (o: OpenedDatabase) => TrafficWriter, count: number): Promise<OpenedDatabase> {
    const o = await openTestDatabase();
    opened.push(o);
    const writer = make(o);
    for (const batch of [0, 1]) {
      const rows = rowsOfBatch(batch, count);
      await o.db.transaction().execute(async (trx) => {
        // The ids are made up, with no source, names or routes behind them: foreign keys are not checked here.
        await sql`set local session_replication_role = replica`.execute(trx);
        await writer.insertExchanges(trx, rows);
        return writer.insertTraffic(trx, rows);
      });
    }
    return o;
  }

  it('stores the very rows and values that its multi-row INSERTs store, awkward text included', async () => {
    const count = COPY_FROM_ROWS + 20;
    const inserted = await written((o) => createTrafficWriter(o.dialect.payloads), count);
    const copied = await written((o) => createTrafficWriter(o.dialect.payloads, { copy: true }), count);
    const expected = await stored(inserted);
    expect(expected.traffic).toHaveLength(2 * count);
    expect(expected.traffic.some((row) => row.includes('back\\\\slash'))).toBe(true);
    expect(await stored(copied)).toEqual(expected);
  });

  it('tells a null from an empty string, and keeps a 2 MiB value whole', async () => {
    const copied = await written((o) => createTrafficWriter(o.dialect.payloads, { copy: true }), COPY_FROM_ROWS);
    const { rows } = await sql<Record<string, unknown>>`
      select request_body, response_body, request_headers, traffic_user_id, route
      from http_traffic order by stream_seq`.execute(copied.db);
    const sent = [...rowsOfBatch(0, COPY_FROM_ROWS), ...rowsOfBatch(1, COPY_FROM_ROWS)].map((row) => ({
      request_body: row.request_body,
      response_body: row.response_body,
      request_headers: row.request_headers,
      traffic_user_id: row.traffic_user_id,
      route: row.route,
    }));
    expect(rows).toEqual(sent);
    const values = rows.flatMap((row) => Object.values(row));
    expect(values).toContain('');
    expect(values).toContain(null);
    expect(values.some((v) => typeof v === 'string' && v.length === 2 * 1024 * 1024)).toBe(true);
  });

  it('rolls back a COPY whose row fails after pieces were sent, and its connection goes on', async () => {
    const o = await openTestDatabase({ pool: 1 });
    opened.push(o);
    const writer = createTrafficWriter(o.dialect.payloads, { copy: true });
    const rows = rowsOfBatch(0, 400);
    // A value node-postgres cannot spell (a cycle for its JSON), after the first pieces have gone.
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    Object.assign(rows[350] ?? {}, { traffic_user_id: cycle });
    const store = (group: NewTrafficRow[]) =>
      o.db.transaction().execute(async (trx) => {
        await sql`set local session_replication_role = replica`.execute(trx);
        return writer.insertTraffic(trx, group);
      });
    await expect(store(rows)).rejects.toThrow(/circular/i);
    // The one connection of the pool is usable again, and nothing of the failed group was kept.
    await store(rowsOfBatch(1, 150));
    const { rows: counted } = await sql<{ n: string }>`select count(*) as n from http_traffic`.execute(o.db);
    expect(Number(counted[0]?.n)).toBe(150);
  });
});
