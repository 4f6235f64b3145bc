// The ways bench/copy-ways.mjs compares (bundled by bench/ts.mjs): a batch's entries by COPY in CSV
// as the daemon spelled them before decisions §20.20 or in COPY's text format as it does now
// (db/pg-copy.ts's `copyField`), the lines made all before the COPY or each piece as the COPY sends
// it, in pieces of `chunk` characters.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { openDatabase } from '../packages/daemon/src/db/open.js';
import { copyChunks, copyField } from '../packages/daemon/src/db/pg-copy.js';
import { prepareValue } from 'pg/lib/utils.js';
import { insertTemplate } from '../packages/daemon/src/db/prepared.js';
import { TRAFFIC_COLUMNS } from '../packages/daemon/src/http-traffic/writer.js';
import type { NewTrafficRow } from '../packages/daemon/src/http-traffic/table.js';
import { realisticRows } from '../packages/daemon/src/http-traffic/realistic-rows.fixture.js';

export function open(url: string) {
  return openDatabase(url, { pool: 1 });
}

export function rowsOfBatch(batch: number, count: number): NewTrafficRow[] {
  // Stored here without the writer, which numbers the stream itself.
  return realisticRows(batch, count).map((row, i) => Object.assign(row, { stream_seq: batch * count + i + 1 }));
}

/** Each row's CSV line, with the daemon's encoders for `db`. */
export function lineMaker(db: ReturnType<typeof open>['db']) {
  const encode = insertTemplate(db, 'http_traffic', TRAFFIC_COLUMNS, 1).encoders;
  return (row: NewTrafficRow) =>
    TRAFFIC_COLUMNS.map((name, i) => csvField(encode[i]?.(row[name] ?? null) ?? null)).join(',');
}

/** One field of COPY's CSV format, as the daemon spelled it before §20.20. */
function csvField(value: unknown): string {
  const prepared = typeof value === 'string' ? value : prepareValue(value);
  if (prepared === null) return '';
  const text = typeof prepared === 'string' ? prepared : `\\x${prepared.toString('hex')}`;
  return text.includes('"') ? `"${text.replaceAll('"', '""')}"` : `"${text}"`;
}

/** Each row's line in COPY's text format, as the daemon makes it. */
export function textLineMaker(db: ReturnType<typeof open>['db']) {
  const encode = insertTemplate(db, 'http_traffic', TRAFFIC_COLUMNS, 1).encoders;
  return (row: NewTrafficRow) =>
    TRAFFIC_COLUMNS.map((name, i) => copyField(encode[i]?.(row[name] ?? null) ?? null)).join('\t');
}

export const TEXT_SQL = `copy "http_traffic" (${TRAFFIC_COLUMNS.map((c) => `"${c}"`).join(', ')}) from stdin`;

export const COPY_SQL = `copy "http_traffic" (${TRAFFIC_COLUMNS.map((c) => `"${c}"`).join(', ')}) from stdin with (format csv)`;

/**
 * Stores `rows` by COPY in one transaction on `client` (a pg.Client, `copyFrom` pg-copy-streams'
 * `from`); `lazy`: lines made as sent.
 */
export async function store(
  client: { query(q: unknown): unknown },
  copyFrom: (sql: string) => unknown,
  lineOf: (row: NewTrafficRow) => string,
  rows: readonly NewTrafficRow[],
  way: { lazy: boolean; chunk: number; text?: boolean },
  textLineOf?: (row: NewTrafficRow) => string,
): Promise<void> {
  if (way.text && textLineOf) lineOf = textLineOf;
  await (client.query('begin') as Promise<unknown>);
  await (client.query('set local session_replication_role = replica') as Promise<unknown>);
  const lines = way.lazy
    ? (function* () {
        for (const row of rows) yield lineOf(row);
      })()
    : rows.map(lineOf);
  const stream = client.query(copyFrom(way.text ? TEXT_SQL : COPY_SQL)) as NodeJS.WritableStream;
  await pipeline(Readable.from(copyChunks(lines, way.chunk), { highWaterMark: 1 }), stream);
  await (client.query('commit') as Promise<unknown>);
}
