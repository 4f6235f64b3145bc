import { type Compilable, CompiledQuery, sql } from 'kysely';
import type { Executor } from '../db/open.js';
import type { PayloadCodec } from '../db/payload-codec.js';
import type { StoredPayload } from '../db/payload.js';
import { preparedCopy } from '../db/prepared-copy.js';
import { executeWaiting, KEPT, TextArray } from '../db/joined.js';
import { ShapedStatements } from '../db/shaped.js';
import { errorCode } from '../db/unavailable.js';
import { preparedInsert } from '../db/prepared.js';
import { PAYLOAD_COLUMNS } from './repo.js';
import type { CountRow, NewTrafficRow } from './table.js';

/**
 * The writes of an ingest transaction: the entries, their exchanges in stored form, the count
 * rollup and the stream numbers. On SQLite, ingest binds them to statements prepared once on its
 * connection (sqlite-writer.ts); on PostgreSQL they go through Kysely, below, a large group's
 * entries by COPY.
 */

/** The columns of an entry, in the order both writers bind them. */
export const TRAFFIC_COLUMNS = [
  'id',
  'traffic_source_id',
  'domain_id',
  'pathname_id',
  'request_id',
  'response_id',
  'status',
  'method',
  'level',
  'protocol',
  'elapsed_time',
  'traffic_user_id',
  'created_at',
  'route',
  'route_id',
  'stream_seq',
  ...PAYLOAD_COLUMNS,
] as const;

/** Whom executeWaiting holds a statement back for. */
const POSTGRES = { backend: 'postgres' } as const;

/** Rows per multi-row INSERT: 20 columns each stays far below SQLite's bound-variable limit. */
const ROWS_PER_INSERT = 500;

function* chunks<T>(rows: readonly T[]): Generator<T[]> {
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) yield rows.slice(i, i + ROWS_PER_INSERT);
}

export interface TrafficWriter {
  /**
   * Readies the rows of one group commit, in `trx`: their exchange (JSON text as ingest gives it)
   * in its stored form (the codec may write a source's new dictionary), and the count rollup.
   */
  insertExchanges(trx: Executor, traffic: readonly NewTrafficRow[]): Promise<void>;
  /**
   * The entries themselves, numbered for the stream: this must be the transaction's last write,
   * so that the counter's row lock, held until commit, orders commits as it orders numbers
   * (docs/decisions.md §9.7). Returns the first number; entries get consecutive ones in order.
   */
  insertTraffic(trx: Executor, traffic: NewTrafficRow[]): Promise<number>;
}

/**
 * From this many entries a group's are stored by COPY on PostgreSQL (db/pg-copy.ts). Below it, a
 * multi-row INSERT: a COPY waits for the server's go-ahead before it sends its rows, a round trip
 * more, which a few rows' parameters do not cost.
 */
export const COPY_FROM_ROWS = 100;

/**
 * One writer per database, through Kysely: its multi-row INSERTs are compiled once per row count
 * for that database's dialect (see db/prepared.ts), and the cache lives and dies with the writer.
 * With `copy` (PostgreSQL), large groups' entries go by COPY instead, in the same transaction.
 */
export function createTrafficWriter(
  payloads: PayloadCodec,
  options: { copy?: boolean; joined?: boolean } = {},
): TrafficWriter {
  const insert = preparedInsert('http_traffic', TRAFFIC_COLUMNS);
  const copy = options.copy ? preparedCopy('http_traffic', TRAFFIC_COLUMNS) : undefined;
  let numbered = options.joined ? numberedInsert() : undefined;
  const insertTraffic = async (trx: Executor, traffic: NewTrafficRow[]) => {
    if (copy && traffic.length >= COPY_FROM_ROWS) await copy(trx, traffic);
    else for (const part of chunks(traffic)) await insert(trx, part);
  };
  return {
    async insertExchanges(trx, traffic) {
      await encodeExchanges(trx, payloads, traffic);
      await addCounts(trx, traffic, options.joined ?? false);
    },
    async insertTraffic(trx, traffic) {
      if (numbered && traffic.length > 0 && traffic.length < COPY_FROM_ROWS) {
        let first: number;
        try {
          first = await numbered(trx, traffic);
        } catch (error) {
          // Another daemon's migration made a column a type its typed array does not reach by
          // assignment (text made uuid, 42804): the group fails, is retried by ingest, and from then
          // on goes as below, by the plain INSERT, whose untyped parameters take the column's type.
          if (isDatatypeMismatch(error)) numbered = undefined;
          throw error;
        }
        traffic.forEach((row, i) => (row.stream_seq = first + i));
        return first;
      }
      const first = (await takeStreamNumbers(trx, traffic.length)) - traffic.length + 1;
      traffic.forEach((row, i) => (row.stream_seq = first + i));
      await insertTraffic(trx, traffic);
      return first;
    },
  };
}

/** PostgreSQL's 42804: an expression of a type that its column does not take by assignment. */
const isDatatypeMismatch = (error: unknown): boolean => errorCode(error) === '42804';

/**
 * PostgreSQL's type of each entry column, as the migrations make it: the arrays the numbered INSERT
 * takes are cast to them (`http-traffic/numbered-insert.postgres.test.ts` reads them back from the
 * database).
 */
export const TRAFFIC_TYPES: Readonly<Record<(typeof TRAFFIC_COLUMNS)[number], string>> = {
  id: 'text',
  traffic_source_id: 'text',
  domain_id: 'text',
  pathname_id: 'text',
  request_id: 'text',
  response_id: 'text',
  status: 'integer',
  method: 'text',
  level: 'text',
  protocol: 'text',
  elapsed_time: 'double precision',
  traffic_user_id: 'text',
  created_at: 'text',
  route: 'text',
  route_id: 'text',
  stream_seq: 'bigint',
  request_headers: 'text',
  request_body: 'text',
  query_params: 'text',
  response_headers: 'text',
  response_body: 'text',
};

/**
 * The numbered INSERT's text, the same for every row count: each column's values as one array
 * parameter, unnested into rows in their order, and the row count last. Its result is cast, so that
 * its type stays what the daemon reads whatever a later migration does to the column.
 */
export const NUMBERED_INSERT = (() => {
  const names = TRAFFIC_COLUMNS.map((c) => `"${c}"`).join(', ');
  const arrays = TRAFFIC_COLUMNS.map((c, i) => `$${i + 1}::${TRAFFIC_TYPES[c]}[]`).join(', ');
  const selected = TRAFFIC_COLUMNS.map((c) =>
    c === 'stream_seq' ? `(select "value" from "seq") - "r"."stream_seq"` : `"r"."${c}"`,
  ).join(', ');
  const count = `$${TRAFFIC_COLUMNS.length + 1}::bigint`;
  return (
    `with "seq" as (insert into "stream_sequence" ("name", "value") values ('traffic', ${count}) ` +
    `on conflict ("name") do update set "value" = "stream_sequence"."value" + ${count} returning "value") ` +
    `insert into "http_traffic" (${names}) select ${selected} from unnest(${arrays}) as "r"(${names}) ` +
    `returning "stream_seq"::bigint as "stream_seq"`
  );
})();

/**
 * PostgreSQL: the stream numbers taken and the entries inserted in one statement, one round trip
 * where they were two (db/pg-joined.ts, decisions §20.22). The counter's upsert is a data-modifying
 * CTE that each row's number is read from, so it runs before the first row is stored and is still
 * the transaction's last lock (§9.7); a row's number is the new last one less its place from the
 * end. One text whatever the row count, each column's values an array: kept parsed on its
 * connection, so PostgreSQL neither parses nor plans it each group (decisions §20.30). Returns the
 * first number.
 */
function numberedInsert(): (trx: Executor, rows: readonly NewTrafficRow[]) => Promise<number> {
  return async (trx, rows) => {
    const parameters: unknown[] = TRAFFIC_COLUMNS.map((name) => {
      if (name === 'stream_seq') return rows.map((_, r) => rows.length - 1 - r);
      const values = rows.map((row) => row[name] ?? null);
      return TRAFFIC_TYPES[name] === 'text' ? new TextArray(values) : values;
    });
    parameters.push(rows.length, KEPT);
    const result = await trx.executeQuery<{ stream_seq: number }>(CompiledQuery.raw(NUMBERED_INSERT, parameters));
    return Math.min(...result.rows.map((row) => Number(row.stream_seq)));
  };
}

/** Each row's exchange in its stored form, in place, with one encoder per source (see db/payload-codec.ts). */
export async function encodeExchanges(
  trx: Executor,
  payloads: PayloadCodec,
  traffic: readonly NewTrafficRow[],
): Promise<void> {
  if (!payloads.compresses) return;
  const bySource = new Map<string, NewTrafficRow[]>();
  for (const row of traffic) {
    const rows = bySource.get(row.traffic_source_id);
    if (rows) rows.push(row);
    else bySource.set(row.traffic_source_id, [row]);
  }
  for (const [sourceId, rows] of bySource) {
    const texts = rows.flatMap((row) =>
      PAYLOAD_COLUMNS.map((c) => row[c]).filter((v): v is string => typeof v === 'string'),
    );
    const encode = await payloads.encoder(trx, sourceId, texts);
    const pack = (value: StoredPayload) => (typeof value === 'string' ? encode(value) : value);
    const packNullable = (value: StoredPayload | null | undefined) =>
      value === null || value === undefined ? null : pack(value);
    for (const row of rows) {
      row.request_headers = pack(row.request_headers);
      row.request_body = packNullable(row.request_body);
      row.query_params = pack(row.query_params);
      row.response_headers = pack(row.response_headers);
      row.response_body = packNullable(row.response_body);
    }
  }
}

/**
 * Hands out `count` stream numbers; returns the last. Row-locks the counter until commit. An upsert,
 * so a counter row that is gone (tables emptied by hand) starts again rather than failing ingest.
 */
async function takeStreamNumbers(trx: Executor, count: number): Promise<number> {
  const row = await trx
    .insertInto('stream_sequence')
    .values({ name: 'traffic', value: count })
    .onConflict((oc) => oc.column('name').doUpdateSet({ value: sql<number>`stream_sequence.value + ${count}` }))
    .returning('value')
    .executeTakeFirstOrThrow();
  return Number(row.value);
}

/**
 * Keeps `traffic_counts` in step with `http_traffic` inside the same transaction, so the two
 * never disagree. A group adds one row per distinct key in one multi-row upsert, as an atomic
 * increment (never read-modify-write), so concurrent writers keep it exact. Keys go in sorted
 * order: on PostgreSQL two transactions that lock the same count rows then lock them in the same
 * order, and so wait for each other instead of deadlocking. With `joined` (PostgreSQL) the upsert
 * waits for the transaction's next statement and goes with it.
 */
async function addCounts(trx: Executor, traffic: readonly NewTrafficRow[], joined: boolean): Promise<void> {
  const upsert = (part: readonly CountRow[]) =>
    trx
      .insertInto('traffic_counts')
      .values(part)
      .onConflict((oc) =>
        oc
          .columns(['traffic_source_id', 'pathname_id', 'method', 'status'])
          .doUpdateSet((eb) => ({ count: eb('traffic_counts.count', '+', eb.ref('excluded.count')) })),
      );
  for (const part of chunks(countRowsOf(traffic))) {
    // PostgreSQL: its result is not read, so it goes with the transaction's next statement
    // (db/pg-joined.ts), compiled once a shape (db/shaped.ts).
    if (joined) await executeWaiting(trx, POSTGRES, shapedCounts(trx, part, upsert));
    else await upsert(part).execute();
  }
}

/** PostgreSQL's count upserts, compiled once a number of keys (decisions §20.29). */
const COUNTS = new ShapedStatements();
/** A count row's columns, in the order its values are listed and read back below. */
const COUNT_COLUMNS = ['traffic_source_id', 'pathname_id', 'domain_id', 'method', 'status', 'level', 'count'] as const;
const COUNT_WIDTH = COUNT_COLUMNS.length;

/** The count upsert of `part`, compiled once its shape (db/shaped.ts). */
function shapedCounts<R>(
  trx: Executor,
  part: readonly CountRow[],
  build: (part: readonly CountRow[]) => Compilable<R>,
) {
  const values: unknown[] = [];
  for (const row of part) for (const column of COUNT_COLUMNS) values.push(row[column]);
  return COUNTS.statement(trx, 'traffic_counts.add', values, (at) =>
    build(
      part.map((c, r) => {
        const i = r * COUNT_WIDTH;
        return {
          traffic_source_id: at(i, c.traffic_source_id),
          pathname_id: at(i + 1, c.pathname_id),
          domain_id: at(i + 2, c.domain_id),
          method: at(i + 3, c.method),
          status: at(i + 4, c.status),
          level: at(i + 5, c.level),
          count: at(i + 6, c.count),
        };
      }),
    ),
  );
}

/**
 * A count row's key as text. Every transaction that writes count rows locks them in the sorted
 * order of these keys (JavaScript's string order), so that two of them wait for each other
 * instead of deadlocking: the ingest's upsert below, and the pruner's decrements.
 */
export const countKeyOf = (row: Pick<CountRow, 'traffic_source_id' | 'pathname_id' | 'method' | 'status'>): string =>
  `${row.traffic_source_id} ${row.pathname_id} ${row.method} ${row.status}`;

/** `keyed`'s values in the order count rows are locked in: their keys' (`countKeyOf`) sorted order. */
export const inCountKeyOrder = <T>(keyed: ReadonlyMap<string, T>): T[] =>
  [...keyed].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, value]) => value);

/** A group's count rows: one per distinct key, in the keys' sorted order. */
export function countRowsOf(traffic: readonly NewTrafficRow[]): CountRow[] {
  const keyed = new Map<string, CountRow>();
  for (const t of traffic) {
    const key = countKeyOf(t);
    const found = keyed.get(key);
    if (found) found.count += 1;
    else {
      const { traffic_source_id, pathname_id, domain_id, method, status, level } = t;
      keyed.set(key, { traffic_source_id, pathname_id, domain_id, method, status, level, count: 1 });
    }
  }
  return inCountKeyOrder(keyed);
}
