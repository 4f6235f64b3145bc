import { type Expression, type RawBuilder, type SqlBool, sql } from 'kysely';

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
   * True when a header named `name` (lower case) of the row `table.id = rowId` has a value meeting
   * `test`. Headers are stored as JSON text mapping a name to a string or an array of strings.
   */
  headerMatches(table: 'requests' | 'responses', rowId: RawBuilder<string>, name: string, test: (value: Text) => Expression<SqlBool>): Expression<SqlBool>;
}

export const sqliteDialect: SqlDialect = {
  backend: 'sqlite',
  doubleType: 'real',
  dropsConstraints: false,
  asciiLower: (text) => sql<string>`lower(${text})`,
  headerMatches: (table, rowId, name, test) => sql<SqlBool>`exists (select 1 from ${sql.table(table)} as fr, json_each(fr.headers) as fh,
    json_each(case when fh.type = 'array' then fh.value else json_array(fh.value) end) as fv
    where fr.id = ${rowId} and lower(fh.key) = ${name} and ${test(sql<string>`fv.value`)})`,
};

export const postgresDialect: SqlDialect = {
  backend: 'postgres',
  doubleType: 'double precision',
  dropsConstraints: true,
  asciiLower: (text) => sql<string>`lower(${text} collate "C")`,
  headerMatches: (table, rowId, name, test) => sql<SqlBool>`exists (select 1 from ${sql.table(table)} as fr
    cross join lateral jsonb_each(fr.headers::jsonb) as fh(key, value)
    cross join lateral jsonb_array_elements_text(case when jsonb_typeof(fh.value) = 'array' then fh.value else jsonb_build_array(fh.value) end) as fv(value)
    where fr.id = ${rowId} and lower(fh.key collate "C") = ${name} and ${test(sql<string>`fv.value`)})`,
};
