import { type Compilable, CompiledQuery, type Insertable } from 'kysely';
import type { Db } from './open.js';
import type { DB } from './schema.js';
import { SENTINEL_PREFIX, slotOf } from './stored-values.js';

const SENTINEL = SENTINEL_PREFIX;

/**
 * A one-parameter lookup compiled once, by its owner, for its database. Kysely builds and
 * compiles a query anew on every call, which costs more than SQLite answering a primary-key
 * lookup; the two lookups every request makes (its token, its source) bind a new value to the
 * same SQL instead. The SQL is still built by Kysely, so it stays dialect-neutral.
 */
export function preparedLookup<R>(
  db: Db,
  build: (db: Db, parameter: string) => Compilable<R>,
): (value: string) => Promise<R | undefined> {
  let prepared: { query: CompiledQuery<R>; position: number; encode: (value: unknown) => unknown } | undefined;
  return async (value) => {
    if (!prepared) {
      const query = build(db, SENTINEL).compile();
      const slots = query.parameters.map((p) => slotOf(p, SENTINEL));
      const position = slots.findIndex((slot) => slot !== undefined);
      const encode = slots[position];
      if (!encode || slots.findIndex((slot, i) => slot && i > position) >= 0)
        throw new Error('a prepared lookup takes exactly one parameter');
      prepared = { query, position, encode };
    }
    const parameters = [...prepared.query.parameters];
    parameters[prepared.position] = prepared.encode(value);
    // The raw query is the compiled one with one parameter swapped: its rows are still R.
    const result = await db.executeQuery<R>(CompiledQuery.raw(prepared.query.sql, parameters));
    return result.rows[0];
  };
}

export type InsertExecutor = Pick<Db, 'executeQuery' | 'insertInto'>;
export type Columns<T extends keyof DB> = ReadonlyArray<keyof Insertable<DB[T]> & string>;
export interface Template {
  readonly sql: string;
  /** One per parameter, in the order rows fill them (row-major): how its column stores a value. */
  readonly encoders: ReadonlyArray<(value: unknown) => unknown>;
}

/**
 * Kysely's multi-row INSERT of `count` rows, compiled from sentinel rows: its SQL, and each
 * parameter's encoder. Kysely turns every value of every row into query nodes before compiling;
 * for batches of hundreds of rows that cost more than the database storing them. The template's
 * SQL and the order of its parameters are Kysely's own (dialect-neutral); rows only fill them.
 */
export function insertTemplate<T extends keyof DB>(
  db: InsertExecutor,
  table: T,
  columns: Columns<T>,
  count: number,
): Template {
  const sentinel = (row: number, column: number) => `${SENTINEL_PREFIX}:${row}:${column}`;
  const sample = Array.from({ length: count }, (_, row) =>
    Object.fromEntries(columns.map((name, column) => [name, sentinel(row, column)])),
  );
  // Sentinel strings stand in for every column's value; only the template's shape is used, so
  // the compiler (which cannot resolve Insertable<DB[T]> for a generic T) is told nothing else.
  const compiled = db
    .insertInto(table)
    // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- see above
    .values(sample as never)
    .compile();
  // Rows fill the parameters in row-major order; a Kysely that compiled them in any other order
  // must fail here, not store values in the wrong columns. The database's plugin may say how a
  // column stores values (db/stored-values.ts): each parameter keeps its encoder.
  const encoders = compiled.parameters.map((parameter, i) => {
    const encode = slotOf(parameter, sentinel(Math.floor(i / columns.length), i % columns.length));
    if (!encode) throw new Error(`unexpected parameter order in the ${table} insert template`);
    return encode;
  });
  if (compiled.parameters.length !== count * columns.length)
    throw new Error(`unexpected parameter count in the ${table} insert template`);
  return { sql: compiled.sql, encoders };
}

/**
 * A multi-row INSERT compiled once per row count, by its owner (one per database, so the SQL is
 * that database's dialect); see insertTemplate.
 */
export function preparedInsert<T extends keyof DB>(table: T, columns: Columns<T>) {
  const templates = new Map<number, Template>();
  return async (db: InsertExecutor, rows: ReadonlyArray<Insertable<DB[T]>>): Promise<void> => {
    let template = templates.get(rows.length);
    if (!template) templates.set(rows.length, (template = insertTemplate(db, table, columns, rows.length)));
    const parameters: unknown[] = new Array(rows.length * columns.length);
    let i = 0;
    for (const row of rows) for (const name of columns) parameters[i] = template.encoders[i++]?.(row[name] ?? null);
    await db.executeQuery(CompiledQuery.raw(template.sql, parameters));
  };
}
