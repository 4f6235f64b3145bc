import { type Compilable, CompiledQuery } from 'kysely';
import type { Db } from './open.js';
import type { DB } from './schema.js';

const SENTINEL = '\u0000tapline-parameter';

/**
 * A one-parameter lookup compiled once per database. Kysely builds and compiles a query anew on
 * every call, which costs more than SQLite answering a primary-key lookup; the two lookups every
 * request makes (its token, its source) bind a new value to the same SQL instead. The SQL is still
 * built by Kysely, so it stays dialect-neutral.
 */
export function preparedLookup<R>(build: (db: Db, parameter: string) => Compilable<R>): (db: Db, value: string) => Promise<R | undefined> {
  const compiledFor = new WeakMap<Db, { query: CompiledQuery<R>; position: number }>();
  return async (db, value) => {
    let prepared = compiledFor.get(db);
    if (!prepared) {
      const query = build(db, SENTINEL).compile();
      const position = query.parameters.indexOf(SENTINEL);
      if (position < 0 || query.parameters.indexOf(SENTINEL, position + 1) >= 0) throw new Error('a prepared lookup takes exactly one parameter');
      compiledFor.set(db, (prepared = { query, position }));
    }
    const parameters = [...prepared.query.parameters];
    parameters[prepared.position] = value;
    const result = await db.executeQuery(CompiledQuery.raw(prepared.query.sql, parameters) as CompiledQuery<R>);
    return result.rows[0];
  };
}

type Executor = Pick<Db, 'executeQuery' | 'insertInto'>;

/**
 * A multi-row INSERT compiled once per table, columns and row count. Kysely turns every value of
 * every row into query nodes before compiling; for batches of hundreds of rows that cost more than
 * SQLite storing them. The template is compiled by Kysely from sentinel rows, so the SQL and the
 * order of its parameters are Kysely's own (dialect-neutral); rows then only fill the parameters.
 */
export function preparedInsert<T extends keyof DB>(table: T, columns: ReadonlyArray<keyof DB[T] & string>) {
  const templates = new Map<number, string>();
  return async (db: Executor, rows: ReadonlyArray<DB[T]>): Promise<void> => {
    let template = templates.get(rows.length);
    if (!template) {
      const sentinel = (row: number, column: number) => `\u0000${row}:${column}`;
      const sample = rows.map((_, row) => Object.fromEntries(columns.map((name, column) => [name, sentinel(row, column)])));
      // Sentinel strings stand in for every column's value; only the template's shape is used.
      const compiled = db.insertInto(table).values(sample as never).compile();
      // Rows fill the parameters in row-major order below; a Kysely that compiled them in any
      // other order must fail here, not store values in the wrong columns.
      compiled.parameters.forEach((parameter, i) => {
        if (parameter !== sentinel(Math.floor(i / columns.length), i % columns.length)) throw new Error(`unexpected parameter order in the ${table} insert template`);
      });
      if (compiled.parameters.length !== rows.length * columns.length) throw new Error(`unexpected parameter count in the ${table} insert template`);
      templates.set(rows.length, (template = compiled.sql));
    }
    const parameters: unknown[] = new Array(rows.length * columns.length);
    let i = 0;
    for (const row of rows) for (const name of columns) parameters[i++] = row[name] ?? null;
    await db.executeQuery(CompiledQuery.raw(template, parameters));
  };
}
