import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type PostgresCursor, type PostgresPool, type PostgresPoolClient, type PostgresQueryResult } from 'kysely';
import type pg from 'pg';
import { prepareValue } from 'pg/lib/utils.js';
import { from as copyFrom } from 'pg-copy-streams';

/**
 * `COPY … FROM STDIN` through Kysely (PostgreSQL only). Kysely hands a query's SQL and parameters
 * to the pool's client and knows nothing of COPY, whose rows go as a stream rather than as
 * parameters; a query whose one parameter is a `CopyData` is run as a COPY of that data on the same
 * client, so it belongs to the transaction it is executed in, and fails as any query does.
 */
export class CopyData {
  /** One CSV line a row, without its line break. */
  constructor(readonly lines: readonly string[]) {}
}

/** About how many characters of CSV go to the socket at once. */
const CHUNK_CHARS = 1 << 20;

/**
 * The lines in pieces of about CHUNK_CHARS, each line ended: never the whole group as one string,
 * which for a group of large bodies passes V8's longest string (about 512 MiB) and would twice
 * hold the group's text; the pipeline waits for the socket between pieces.
 */
export function* csvChunks(lines: readonly string[]): Generator<string> {
  let piece: string[] = [];
  let size = 0;
  for (const line of lines) {
    piece.push(line);
    size += line.length + 1;
    if (size >= CHUNK_CHARS) {
      yield `${piece.join('\n')}\n`;
      piece = [];
      size = 0;
    }
  }
  if (piece.length > 0) yield `${piece.join('\n')}\n`;
}

async function copyIn(client: pg.PoolClient, sql: string, data: CopyData): Promise<PostgresQueryResult<never>> {
  const stream = client.query(copyFrom(sql));
  await pipeline(Readable.from(csvChunks(data.lines)), stream);
  // Kysely reads `command` only to count affected rows, as it does for an INSERT's.
  return { command: 'INSERT', rowCount: stream.rowCount, rows: [] };
}

function copying(client: pg.PoolClient): PostgresPoolClient {
  function query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  function query<R>(sql: string, parameters: readonly unknown[]): Promise<PostgresQueryResult<R>>;
  function query(what: unknown, parameters: readonly unknown[] = []): unknown {
    // Kysely passes a cursor only when its dialect is given a cursor class, which this one is not.
    if (typeof what !== 'string') throw new Error('streaming queries are not configured');
    const [data] = parameters;
    if (data instanceof CopyData && parameters.length === 1) return copyIn(client, what, data);
    return client.query(what, [...parameters]);
  }
  return { query, release: () => client.release() };
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

/**
 * One field of COPY's CSV format, from a value as node-postgres would send it as a parameter (its
 * own `prepareValue`, so both ways store the same text). CSV rather than COPY's text format: a
 * value is quoted whole and a quote inside is doubled, nothing else; backslashes, tabs and line
 * breaks pass as they are, where the text format must escape each. An unquoted empty field is
 * NULL; a quoted one is the empty string.
 */
export function csvField(value: unknown): string {
  // Most values are text already, which node-postgres would send as it is.
  const prepared = typeof value === 'string' ? value : prepareValue(value);
  if (prepared === null) return '';
  const text = typeof prepared === 'string' ? prepared : `\\x${prepared.toString('hex')}`;
  return text.includes('"') ? `"${text.replaceAll('"', '""')}"` : `"${text}"`;
}
