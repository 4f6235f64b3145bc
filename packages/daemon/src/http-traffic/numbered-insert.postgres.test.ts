import { freshDatabase, openTestDatabase } from '@tapline/testkit/daemon';
import { type RawBuilder, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type OpenedDatabase } from '../db/open.js';
import { realisticRows } from './realistic-rows.fixture.js';
import type { NewTrafficRow } from './table.js';
import { createTrafficWriter, NUMBERED_INSERT, TRAFFIC_COLUMNS, TRAFFIC_TYPES, type TrafficWriter } from './writer.js';

/** What an array's text form treats specially (braces, commas, quotes, backslashes, NULL), and more. */
const AWKWARD = [
  '{braces}, {"a","b"}, {NULL}',
  'NULL',
  'null',
  ' leading and trailing spaces ',
  'a,comma',
  '"quoted", ""doubled"" and a lone "',
  'back\\slash \\N \\" \\x41 ends in a backslash\\',
  '',
  'tab\there, line\nbreak, carriage\rreturn',
  'ünïcödé, 日本語, emoji 🧪, combining e\u0301, \u2028separator',
  '{"json":"with \\"escapes\\" and \\\\ and \\u0041"}',
  "it's; drop table http_traffic; --",
];
const LARGE = 'x'.repeat(2 * 1024 * 1024);

/** Realistic rows with the awkward values above in every column that takes any text, and nulls. */
function rowsOfGroup(group: number, count: number): NewTrafficRow[] {
  return realisticRows(group, count).map((row, i) => {
    const awkward = (k: number) => AWKWARD[(group * 7 + i + k) % AWKWARD.length] ?? '';
    if (i % 3 === 0) {
      row.request_body = awkward(0);
      row.response_body = i === 3 ? LARGE : awkward(1);
      row.request_headers = awkward(2);
      row.query_params = awkward(3);
      row.traffic_user_id = awkward(4);
      row.route = awkward(5);
      // Not a protocol the contract takes, but a text column to PostgreSQL: it stores it as it is.
      Object.assign(row, { protocol: awkward(6) });
      row.elapsed_time = [0.1 + 0.2, -0, 1e-300, 123456789.123456789][i % 4] ?? 0;
    } else if (i % 3 === 1) {
      row.request_body = null;
      row.response_body = null;
      row.traffic_user_id = null;
      row.route = null;
      row.route_id = null;
    }
    return row;
  });
}

/** Every stored row as PostgreSQL spells it, the counts and the counter. */
async function stored({ db }: OpenedDatabase) {
  const text = async (query: RawBuilder<{ row: string }>) => (await query.execute(db)).rows.map((r) => r.row);
  return {
    traffic: await text(sql`select t::text as row from http_traffic t order by stream_seq`),
    counts: await text(sql`select c::text as row from traffic_counts c order by c::text`),
    sequence: await text(sql`select s::text as row from stream_sequence s`),
  };
}

/** Group sizes below COPY's threshold, 1 first. */
const GROUPS = [1, 7, 2, 40, 99, 13];

/**
 * The entries' INSERT of a PostgreSQL group, one text for every row count and kept parsed on its
 * connection (decisions §20.30), against the plain multi-row INSERT with its parameters untyped.
 */
describe('the numbered INSERT of a PostgreSQL group', () => {
  const opened: OpenedDatabase[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((o) => o.close()));
  });

  const store = (o: OpenedDatabase, writer: TrafficWriter, rows: NewTrafficRow[]) =>
    o.db.transaction().execute(async (trx) => {
      // Made-up ids with no source, names or routes behind them: foreign keys are not checked here.
      await sql`set local session_replication_role = replica`.execute(trx);
      await writer.insertExchanges(trx, rows);
      return writer.insertTraffic(trx, rows);
    });

  async function written(joined: boolean): Promise<{ o: OpenedDatabase; firsts: number[] }> {
    const o = await openTestDatabase({ pool: 1 });
    opened.push(o);
    const writer = createTrafficWriter(o.dialect.payloads, { copy: true, joined });
    const firsts: number[] = [];
    for (const [group, count] of GROUPS.entries()) firsts.push(await store(o, writer, rowsOfGroup(group, count)));
    return { o, firsts };
  }

  it("spells each column's type as the migrations made it", async () => {
    const o = await openTestDatabase();
    opened.push(o);
    const { rows } = await sql<{ column_name: string; data_type: string }>`
      select column_name, data_type from information_schema.columns
      where table_name = 'http_traffic' and table_schema = current_schema()`.execute(o.db);
    const types = Object.fromEntries(rows.map((r) => [r.column_name, r.data_type]));
    expect(Object.fromEntries(TRAFFIC_COLUMNS.map((c) => [c, types[c]]))).toEqual(TRAFFIC_TYPES);
  });

  it('stores the very rows, numbers, counts and counter that the plain INSERT stores', async () => {
    const plain = await written(false);
    const numbered = await written(true);
    const expected = await stored(plain.o);
    expect(expected.traffic).toHaveLength(GROUPS.reduce((a, b) => a + b, 0));
    expect(expected.traffic.some((row) => row.includes('{braces}'))).toBe(true);
    expect(numbered.firsts).toEqual(plain.firsts);
    expect(await stored(numbered.o)).toEqual(expected);
    const { rows } = await sql<{ request_body: string | null; response_body: string | null }>`
      select request_body, response_body from http_traffic order by stream_seq`.execute(numbered.o.db);
    const sent = GROUPS.flatMap((count, group) => rowsOfGroup(group, count));
    expect(rows).toEqual(sent.map(({ request_body, response_body }) => ({ request_body, response_body })));
  });

  it('is one statement a connection, parsed once, its plan kept whatever the row count', async () => {
    const { o } = await written(true);
    const { rows } = await sql<{ statement: string; generic_plans: string; custom_plans: string }>`
      select statement, generic_plans, custom_plans from pg_prepared_statements`.execute(o.db);
    expect(rows.map((r) => r.statement)).toEqual([NUMBERED_INSERT]);
    expect(Number(rows[0]?.generic_plans)).toBeGreaterThan(0);
    expect(Number(rows[0]?.generic_plans) + Number(rows[0]?.custom_plans)).toBe(GROUPS.length);
  });

  it('fails as the plain INSERT does on a value PostgreSQL refuses, and its connection goes on', async () => {
    const codes = [];
    for (const joined of [false, true]) {
      const o = await openTestDatabase({ pool: 1 });
      opened.push(o);
      const writer = createTrafficWriter(o.dialect.payloads, { joined });
      const failing = (change: (row: NewTrafficRow) => void) => {
        const rows = rowsOfGroup(0, 5);
        change(rows[2] ?? rows[0]!);
        return store(o, writer, rows).then(
          () => 'stored',
          (e: unknown) => (e as { code?: string }).code,
        );
      };
      codes.push([
        await failing((row) => (row.request_body = 'a NUL \0 in a body')),
        await failing((row) => Object.assign(row, { elapsed_time: 'not a number' })),
        await failing((row) => Object.assign(row, { id: null })),
        await store(o, writer, rowsOfGroup(1, 3)),
      ]);
    }
    expect(codes[0]).toEqual(['22021', '22P02', '23502', 1]);
    expect(codes[1]).toEqual(codes[0]);
  });

  it('keeps its statement on its connection after a group whose values cannot be sent', async () => {
    // A value node-postgres fails to spell while binding (here one that throws as it is spelled):
    // it then closes the named statement on the server, but goes on believing it parsed there.
    const unspellable = () =>
      rowsOfGroup(1, 3).map((row, i) =>
        i === 1 ? Object.assign(row, { elapsed_time: { toPostgres: () => ''.padEnd(2 ** 30) } }) : row,
      );
    // Once the statement was parsed on the connection, and as the connection's first.
    for (const before of [3, 0]) {
      const o = await openTestDatabase({ pool: 1 });
      opened.push(o);
      const writer = createTrafficWriter(o.dialect.payloads, { joined: true });
      if (before > 0) expect(await store(o, writer, rowsOfGroup(0, before))).toBe(1);
      await expect(store(o, writer, unspellable())).rejects.toThrow(RangeError);
      expect(await store(o, writer, rowsOfGroup(2, 3))).toBe(before + 1);
    }
  });

  it('is parsed again on a new connection after its own was ended, and holds after a migration', async () => {
    const fresh = await freshDatabase({ migrated: true });
    const o = openDatabase(fresh.locator, { pool: 1 });
    await o.migrate();
    const other = openDatabase(fresh.locator, { pool: 1 });
    opened.push(o, { ...other, close: () => other.close().then(() => fresh.drop()) });
    const writer = createTrafficWriter(o.dialect.payloads, { joined: true });
    expect(await store(o, writer, rowsOfGroup(0, 3))).toBe(1);
    // As a restart does: the server ends the pool's one connection; the next takes a new one.
    await sql`select pg_terminate_backend(pid) from pg_stat_activity
      where datname = current_database() and pid <> pg_backend_pid()`.execute(other.db);
    const again = async (group: number, count: number): Promise<number> => {
      for (let attempt = 0; ; attempt++) {
        try {
          return await store(o, writer, rowsOfGroup(group, count));
        } catch (e) {
          if (attempt > 2) throw e;
        }
      }
    };
    expect(await again(1, 3)).toBe(4);
    // Another daemon's migration: a column added, two columns' types changed (the stream number's too,
    // which a kept statement whose result changed type would refuse: 0A000).
    await sql`alter table http_traffic add column later text default 'later'`.execute(other.db);
    await sql`alter table http_traffic alter column status type bigint`.execute(other.db);
    await sql`alter table http_traffic alter column stream_seq type numeric`.execute(other.db);
    expect(await store(o, writer, rowsOfGroup(2, 3))).toBe(7);
    const { rows } = await sql<{ n: string }>`select count(*) as n from http_traffic where later = 'later'`.execute(
      o.db,
    );
    expect(Number(rows[0]?.n)).toBe(9);
  });

  it("stores the next group as the plain INSERT would after another daemon's migration its arrays do not reach", async () => {
    // A column made a type that no text reaches by assignment (here `uuid`): the plain INSERT's
    // untyped parameters take the new type, the typed arrays meet it with 42804.
    const firsts = [];
    for (const joined of [false, true]) {
      const fresh = await freshDatabase({ migrated: true });
      const o = openDatabase(fresh.locator, { pool: 1 });
      await o.migrate();
      opened.push({ ...o, close: () => o.close().then(() => fresh.drop()) });
      const writer = createTrafficWriter(o.dialect.payloads, { joined });
      expect(await store(o, writer, rowsOfGroup(0, 3))).toBe(1);
      await sql`alter table http_traffic alter column route_id type uuid using route_id::uuid`.execute(o.db);
      const codes: unknown[] = [];
      for (let attempt = 0; attempt < 3; attempt++) {
        const first = await store(o, writer, rowsOfGroup(1, 3)).catch((e: unknown) => (e as { code?: string }).code);
        codes.push(first);
        if (typeof first === 'number') break;
      }
      firsts.push(codes);
    }
    expect(firsts[0]).toEqual([4]);
    // The kept statement fails once; the writer then leaves it for the plain INSERT.
    expect(firsts[1]).toEqual(['42804', 4]);
  });
});
