import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type PostgresCursor, type PostgresPool, type PostgresPoolClient, type PostgresQueryResult } from 'kysely';
import type pg from 'pg';
import { prepareValue } from 'pg/lib/utils.js';
import { from as copyFrom } from 'pg-copy-streams';
import { Waiting } from './pg-joined.js';

/**
 * `COPY … FROM STDIN` through Kysely (PostgreSQL only). Kysely hands a query's SQL and parameters
 * to the pool's client and knows nothing of COPY, whose rows go as a stream rather than as
 * parameters; a query whose one parameter is a `CopyData` is run as a COPY of that data on the same
 * client, so it belongs to the transaction it is executed in, and fails as any query does.
 */
export class CopyData {
  /**
   * The rows' text, in pieces of bytes (see copyPieces). Read once, as the COPY sends them: pieces
   * made as they are read are made while PostgreSQL stores the ones sent before.
   */
  constructor(readonly pieces: Iterable<Uint8Array>) {}
}

/** About how many bytes of the rows' text go to the socket at once. */
const PIECE_BYTES = 1 << 16;
const TAB = 0x09;
const LINE_FEED = 0x0a;

/**
 * COPY's text format of `rows`, `fields` fields a row (`fieldOf` gives one as node-postgres would
 * send it as a parameter; see copyField): each field written straight into a piece of about
 * PIECE_BYTES, ended by a tab or, the row's last, a line feed. No string is made for a line or a
 * piece, where joining them made each row's text twice more in V8's heap before its bytes
 * (decisions §20.25); the bytes are those of the lines joined and encoded as UTF-8. A piece may
 * end inside a row, which COPY allows (its messages need not follow rows); a field longer than a
 * piece has one of its own size. Each piece is made only once the one before has gone, so
 * PostgreSQL stores a piece's rows while the next is made (§20.20), and the group is never one
 * string (which for large bodies passes V8's longest).
 */
export function* copyPieces<R>(
  rows: Iterable<R>,
  fields: number,
  fieldOf: (row: R, field: number) => unknown,
  bytes = PIECE_BYTES,
): Generator<Buffer> {
  let piece = Buffer.allocUnsafeSlow(bytes);
  let at = 0;
  for (const row of rows) {
    for (let field = 0; field < fields; field++) {
      const text = copyField(fieldOf(row, field));
      // UTF-8 takes at most three bytes for each of a string's UTF-16 units, and the separator one;
      // the exact length is counted only when that bound does not fit (a piece's last fields).
      if (at + text.length * 3 + 1 > piece.length) {
        const size = Buffer.byteLength(text) + 1;
        if (at + size > piece.length) {
          if (at > 0) yield piece.subarray(0, at);
          piece = Buffer.allocUnsafeSlow(Math.max(bytes, size));
          at = 0;
        }
      }
      at += piece.write(text, at);
      piece[at++] = field === fields - 1 ? LINE_FEED : TAB;
    }
  }
  if (at > 0) yield piece.subarray(0, at);
}

async function copyIn(client: pg.PoolClient, sql: string, data: CopyData): Promise<PostgresQueryResult<never>> {
  const stream = client.query(copyFrom(sql));
  // One piece read ahead at most (an object stream reads 16 ahead by default): the pieces are made
  // as the socket takes them, not all of them while the COPY waits for the server's go-ahead.
  await pipeline(Readable.from(data.pieces, { highWaterMark: 1 }), stream);
  // Kysely reads `command` only to count affected rows, as it does for an INSERT's.
  return { command: 'INSERT', rowCount: stream.rowCount, rows: [] };
}

function copying(client: pg.PoolClient): PostgresPoolClient {
  const waiting = new Waiting();
  const run = (sql: string, parameters: readonly unknown[]): Promise<unknown> => {
    const [data] = parameters;
    if (data instanceof CopyData && parameters.length === 1) return copyIn(client, sql, data);
    return client.query(sql, [...parameters]);
  };
  function query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  function query<R>(sql: string, parameters: readonly unknown[]): Promise<PostgresQueryResult<R>>;
  function query(what: unknown, parameters: readonly unknown[] = []): unknown {
    // Kysely passes a cursor only when its dialect is given a cursor class, which this one is not.
    if (typeof what !== 'string') throw new Error('streaming queries are not configured');
    // Statements held back on this connection go first (db/pg-joined.ts).
    return waiting.query(client, what, parameters, run);
  }
  return {
    query,
    release: () => {
      waiting.forget();
      client.release();
    },
  };
}

/** `pool` for Kysely's PostgresDialect, its clients able to run a COPY (see CopyData). */
export function copyingPool(pool: pg.Pool): PostgresPool {
  const wrapped = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  return {
    async connect() {
      const client = await pool.connect();
      let found = wrapped.get(client);
      if (!found) wrapped.set(client, (found = copying(client)));
      return found;
    },
    end: () => pool.end(),
  };
}

/** What COPY's text format spells with a backslash, and how. */
const SPECIAL = /[\\\t\n\r]/;
const SPECIALS = /[\\\t\n\r]/g;
const ESCAPED: Readonly<Record<string, string>> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/**
 * One field of COPY's text format, from a value as node-postgres would send it as a parameter (its
 * own `prepareValue`, so both ways store the same text). A backslash, a tab, a line feed and a
 * carriage return are each written as a backslash and a letter (a backslash doubled), NULL as `\N`;
 * everything else goes as it is, so most values (JSON text has none of the four outside an escape)
 * are sent without a copy, where CSV quoted every value and doubled every quote (decisions §20.20).
 */
export function copyField(value: unknown): string {
  // Most values are text already, which node-postgres would send as it is.
  const prepared = typeof value === 'string' ? value : prepareValue(value);
  if (prepared === null) return '\\N';
  const text = typeof prepared === 'string' ? prepared : `\\x${prepared.toString('hex')}`;
  return SPECIAL.test(text) ? text.replace(SPECIALS, (c) => ESCAPED[c] ?? c) : text;
}
