// The ways bench/copy-ways.mjs compares (bundled by bench/ts.mjs): a batch's entries by COPY in CSV
// as the daemon spelled them before decisions §20.20 or in COPY's text format as it does now
// (db/pg-copy.ts's `copyField`), the lines made all before the COPY or each piece as the COPY sends
// it, in pieces of `chunk` characters; or (`bytes`) written straight into pieces of bytes as the
// daemon does since decisions §20.25 (db/pg-copy.ts's `copyPieces`).
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { openDatabase } from '../packages/daemon/src/db/open.js';
import { copyField, copyPieces } from '../packages/daemon/src/db/pg-copy.js';
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

/**
 * The lines in pieces of about `chars` characters, each line ended, as the daemon sent them
 * before decisions §20.25 (a string a line, joined into a string a piece).
 */
function* copyChunks(lines: Iterable<string>, chars: number): Generator<string> {
  let piece: string[] = [];
  let size = 0;
  for (const line of lines) {
    piece.push(line);
    size += line.length + 1;
    if (size >= chars) {
      yield `${piece.join('\n')}\n`;
      piece = [];
      size = 0;
    }
  }
  if (piece.length > 0) yield `${piece.join('\n')}\n`;
}

/** Each row's pieces of bytes in COPY's text format, as the daemon writes them (§20.25). */
export function piecesMaker(db: ReturnType<typeof open>['db']) {
  const encode = insertTemplate(db, 'http_traffic', TRAFFIC_COLUMNS, 1).encoders;
  return (rows: readonly NewTrafficRow[]) =>
    copyPieces(rows, TRAFFIC_COLUMNS.length, (row, i) => {
      const name = TRAFFIC_COLUMNS[i];
      return name === undefined ? null : (encode[i]?.(row[name] ?? null) ?? null);
    });
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
  way: { lazy: boolean; chunk: number; text?: boolean; bytes?: boolean },
  textLineOf?: (row: NewTrafficRow) => string,
  piecesOf?: (rows: readonly NewTrafficRow[]) => Iterable<Buffer>,
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
  const pieces = way.bytes && piecesOf ? piecesOf(rows) : copyChunks(lines, way.chunk);
  await pipeline(Readable.from(pieces, { highWaterMark: 1 }), stream);
  await (client.query('commit') as Promise<unknown>);
}
