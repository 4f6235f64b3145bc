import { type Kysely, sql } from 'kysely';
import { encodePayload, type PayloadDictionary, trainDictionary } from '../payload.js';
import type { SqlDialect } from '../dialect.js';

// The row work of 2026-11-25T0100-compact-storage (SQLite), frozen with it.
type AnyDB = Kysely<unknown>;

/** Rows per transaction: an interrupted upgrade loses at most one batch of work. */
const BATCH = 1_000;
/** Entries a source's first dictionary is trained on: its newest, as the daemon would train it. */
const TRAINING_ENTRIES = 200;

interface OldRow {
  k: number;
  traffic_source_id: string;
  a: string | null;
  b: string | null;
  c: string | null;
  d: string | null;
  e: string | null;
}

/** An entry joined with its old request and response rows; an entry missing one keeps empty header sets. */
const exchange = sql`select t.rowid as k, t.*, r.headers as a, r.body as b, r.query_params as c, s.headers as d, s.body as e
  from http_traffic as t left join requests as r on r.id = t.request_id left join responses as s on s.id = t.response_id`;

/** Each source's dictionary: its newest one, or one trained now on its newest entries (committed at once). */
export async function trainDictionaries(db: AnyDB, dialect: SqlDialect): Promise<Map<string, PayloadDictionary>> {
  const dictionaries = new Map<string, PayloadDictionary>();
  const known = await sql<{
    id: number;
    traffic_source_id: string;
    data: Uint8Array;
  }>`select id, traffic_source_id, data from payload_dictionaries order by id`.execute(db);
  for (const d of known.rows) dictionaries.set(d.traffic_source_id, { id: d.id, data: d.data });
  const sources = await sql<{ id: string }>`select id from traffic_sources order by id`.execute(db);
  let next = Math.max(0, ...known.rows.map((d) => d.id)) + 1;
  for (const { id: sourceId } of sources.rows) {
    if (dictionaries.has(sourceId)) continue;
    const newest =
      await sql<OldRow>`${exchange} where t.traffic_source_id = ${sourceId} order by t.created_at desc, t.id desc limit ${TRAINING_ENTRIES}`.execute(
        db,
      );
    const samples = newest.rows
      .reverse()
      .flatMap((r) => [r.a, r.b, r.c, r.d, r.e].filter((text): text is string => text !== null));
    if (samples.length === 0) continue;
    const dictionary = { id: next++, data: trainDictionary(samples) };
    await sql`insert into payload_dictionaries (id, traffic_source_id, data, created_at) values (${dictionary.id}, ${sourceId}, ${dictionary.data}, ${new Date().toISOString()})`.execute(
      db,
    );
    dialect.payloads.remember(dictionary);
    dictionaries.set(sourceId, dictionary);
  }
  return dictionaries;
}

const COLUMNS = [
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
  'stream_seq',
];

/** Copies the entries not copied yet, oldest rowid first, compressing their exchange; resumable. */
export async function foldRowsIntoCompactTable(
  db: AnyDB,
  dictionaries: ReadonlyMap<string, PayloadDictionary>,
): Promise<void> {
  const names = sql.join(
    ['rowid', ...COLUMNS, 'request_headers', 'request_body', 'query_params', 'response_headers', 'response_body'].map(
      (c) => sql.ref(c),
    ),
  );
  for (;;) {
    const done = await sql<{ k: number | null }>`select max(rowid) as k from http_traffic_compact`.execute(db);
    const { rows } = await sql<
      OldRow & Record<string, unknown>
    >`${exchange} where t.rowid > ${done.rows[0]?.k ?? 0} order by t.rowid limit ${BATCH}`.execute(db);
    if (rows.length === 0) return;
    const values = rows.map((row) => {
      const pack = (text: string | null) =>
        text === null ? null : encodePayload(text, dictionaries.get(row.traffic_source_id));
      const payload = [pack(row.a ?? '{}'), pack(row.b), pack(row.c ?? '{}'), pack(row.d ?? '{}'), pack(row.e)];
      return sql`(${sql.join([row.k, ...COLUMNS.map((c) => row[c] ?? null), ...payload])})`;
    });
    await db
      .transaction()
      .execute((trx) => sql`insert into http_traffic_compact (${names}) values ${sql.join(values)}`.execute(trx));
  }
}
