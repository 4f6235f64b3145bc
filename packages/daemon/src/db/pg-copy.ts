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
   * One line of COPY's text format a row, without its line break. Read once, as the COPY sends them: lines made as
   * they are read are made while PostgreSQL stores the ones sent before.
   */
  constructor(readonly lines: Iterable<string>) {}
}

/** About how many characters of the rows' text go to the socket at once. */
const CHUNK_CHARS = 1 << 16;

/**
 * The lines in pieces of about CHUNK_CHARS, each line ended: never the whole group as one string,
 * which for a group of large bodies passes V8's longest string (about 512 MiB) and would twice
 * hold the group's text; the pipeline waits for the socket between pieces. Each piece is made only
 * once the one before has gone: PostgreSQL stores a piece's rows while the next is made
 * (docs/decisions.md §20.20).
 */
export function* copyChunks(lines: Iterable<string>, chars = CHUNK_CHARS): Generator<string> {
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

async function copyIn(client: pg.PoolClient, sql: string, data: CopyData): Promise<PostgresQueryResult<never>> {
  const stream = client.query(copyFrom(sql));
  // One piece read ahead at most (an object stream reads 16 ahead by default): the pieces are made
  // as the socket takes them, not all of them while the COPY waits for the server's go-ahead.
  await pipeline(Readable.from(copyChunks(data.lines), { highWaterMark: 1 }), stream);
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
