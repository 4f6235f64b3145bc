import type { Statement } from 'better-sqlite3';
import { type Expression, type RawBuilder, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import { type PayloadCodec, plainPayloads } from './payload-codec.js';
import { compactValues, plainValues, type StoredValues } from './stored-values.js';

/** The database engines taplined runs on: an embedded SQLite file, or a PostgreSQL server. */
export type Backend = 'sqlite' | 'postgres';

type Text = Expression<string> | RawBuilder<string>;

/**
 * Everything in Tapline's SQL that SQLite and PostgreSQL spell differently, and nothing else.
 * Repositories and migrations take it with the database and never test which engine they run on;
 * the rest of the SQL (Kysely's builders, `ON CONFLICT … DO UPDATE`, `RETURNING`, `substr`,
 * `LIKE … ESCAPE`, `coalesce`, `||`) reads the same in both. Times are ISO 8601 text computed in
 * JavaScript, so no SQL does date arithmetic.
 */
export interface SqlDialect {
  readonly backend: Backend;
  /**
   * A column type of 8-byte floats. SQLite's `real` is one; PostgreSQL's `real` is 4 bytes and
   * would round a latency of 1234.5678 ms.
   */
  readonly doubleType: 'real' | 'double precision';
  /**
   * Whether `ALTER TABLE … DROP CONSTRAINT` exists. SQLite has none: a migration that removes a
   * foreign key there rebuilds the table instead.
   */
  readonly dropsConstraints: boolean;
  /**
   * Text lower-cased in ASCII only, as the filter language's `~` compares (`asciiLower` in
   * shared). SQLite's `lower` is ASCII-only by itself; PostgreSQL's follows the column's
   * collation (`É` → `é` under a UTF-8 locale) unless the collation is `C`.
   */
  asciiLower(text: Text): RawBuilder<string>;
  /**
   * True when a header named `name` (lower case) of the header set `headers` (JSON text, as
   * payloadText reads it) has a value meeting `test`: it maps a name to a string or an array of strings.
   */
  headerMatches(headers: Text, name: string, test: (value: Text) => Expression<SqlBool>): Expression<SqlBool>;
  /** How this database stores header sets and bodies (db/payload-codec.ts), one per opened database. */
  readonly payloads: PayloadCodec;
  /** A stored payload column as its JSON text, in SQL (SQLite: the codec's function `tapline_text`). */
  payloadText(stored: Expression<unknown> | RawBuilder<unknown>): RawBuilder<string>;
  /**
   * Whether transactions commit concurrently (a pool of connections, other daemons): then only
   * the database knows the commit order, and the live stream reads new entries from the table in
   * `stream_seq` order (docs/decisions.md §9.7) instead of taking this process's events as they come.
   */
  readonly concurrentWriters: boolean;
  /**
   * A select that decides a write, with its rows locked until the transaction ends: `wait` for
   * rows another transaction holds, or `skip` them (a queue's claim). SQLite's one writer already
   * has the database to itself, and it has no `FOR UPDATE`: the query stays as it is.
   */
  lockRows<DB, TB extends keyof DB, O>(
    query: SelectQueryBuilder<DB, TB, O>,
    mode: 'wait' | 'skip',
  ): SelectQueryBuilder<DB, TB, O>;
  /**
   * How ids are stored (db/stored-values.ts): SQLite's as 16 bytes, and its Kysely plugin
   * applies this to every builder query; raw SQL that binds an id or a time uses it by hand.
   */
  readonly stored: StoredValues;
  /**
   * The column's value, hidden from the planner's choice of index (to make it take another):
   * SQLite's unary `+` keeps any type; PostgreSQL's text gets `|| ''`.
   */
  unindexed(column: Expression<unknown> | RawBuilder<unknown>): RawBuilder<string>;
  /**
   * SQLite: statements of its one connection, for ingest's hottest writes, which bind values to
   * SQL prepared once instead of going through Kysely (http-traffic/sqlite-writer.ts). PostgreSQL:
   * none, every write goes through Kysely.
   */
  readonly statements?: DirectStatements;
}

/** The one connection of an SQLite database, below Kysely: used only inside a Kysely transaction. */
export interface DirectStatements {
  /** The statement of this SQL text, prepared once per connection. */
  prepare(sqlText: string): Statement;
  /** Whether a transaction is open: a direct write outside one would commit on its own. */
  readonly inTransaction: boolean;
}

/** The SQL function sqlite.ts registers on each connection: its codec's decoder. */
export const PAYLOAD_TEXT_FUNCTION = 'tapline_text';

/** SQLite's dialect with the codec of one connection (which registers PAYLOAD_TEXT_FUNCTION). */
export const sqliteDialect = (payloads: PayloadCodec, statements?: DirectStatements): SqlDialect => ({
  backend: 'sqlite',
  payloads,
  ...(statements && { statements }),
  payloadText: (stored) => sql<string>`${sql.raw(PAYLOAD_TEXT_FUNCTION)}(${stored})`,
  concurrentWriters: false,
  lockRows: (query) => query,
  stored: compactValues,
  unindexed: (column) => sql<string>`+${column}`,
  doubleType: 'real',
  dropsConstraints: false,
  asciiLower: (text) => sql<string>`lower(${text})`,
  headerMatches: (headers, name, test) => sql<SqlBool>`exists (select 1 from json_each(${headers}) as fh,
    json_each(case when fh.type = 'array' then fh.value else json_array(fh.value) end) as fv
    where lower(fh.key) = ${name} and ${test(sql<string>`fv.value`)})`,
});

export const postgresDialect: SqlDialect = {
  backend: 'postgres',
  payloads: plainPayloads,
  payloadText: (stored) => sql<string>`${stored}`,
  concurrentWriters: true,
  stored: plainValues,
  unindexed: (column) => sql<string>`${column} || ''`,
  lockRows: (query, mode) => (mode === 'skip' ? query.forUpdate().skipLocked() : query.forUpdate()),
  doubleType: 'double precision',
  dropsConstraints: true,
  asciiLower: (text) => sql<string>`lower(${text} collate "C")`,
  headerMatches: (
    headers,
    name,
    test,
  ) => sql<SqlBool>`exists (select 1 from jsonb_each(${headers}::jsonb) as fh(key, value)
    cross join lateral jsonb_array_elements_text(case when jsonb_typeof(fh.value) = 'array' then fh.value else jsonb_build_array(fh.value) end) as fv(value)
    where lower(fh.key collate "C") = ${name} and ${test(sql<string>`fv.value`)})`,
};
