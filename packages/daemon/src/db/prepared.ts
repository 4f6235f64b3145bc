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

type InsertExecutor = Pick<Db, 'executeQuery' | 'insertInto'>;

/**
 * A multi-row INSERT compiled once per row count, by its owner (one per database, so the SQL is
 * that database's dialect). Kysely turns every value of
 * every row into query nodes before compiling; for batches of hundreds of rows that cost more than
 * SQLite storing them. The template is compiled by Kysely from sentinel rows, so the SQL and the
 * order of its parameters are Kysely's own (dialect-neutral); rows then only fill the parameters.
 */
export function preparedInsert<T extends keyof DB>(table: T, columns: ReadonlyArray<keyof Insertable<DB[T]> & string>) {
  const templates = new Map<number, { sql: string; encoders: Array<(value: unknown) => unknown> }>();
  return async (db: InsertExecutor, rows: ReadonlyArray<Insertable<DB[T]>>): Promise<void> => {
    let template = templates.get(rows.length);
    if (!template) {
      const sentinel = (row: number, column: number) => `${SENTINEL_PREFIX}:${row}:${column}`;
      const sample = rows.map((_, row) =>
        Object.fromEntries(columns.map((name, column) => [name, sentinel(row, column)])),
      );
      // Sentinel strings stand in for every column's value; only the template's shape is used, so
      // the compiler (which cannot resolve Insertable<DB[T]> for a generic T) is told nothing else.
      const compiled = db
        .insertInto(table)
        // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- see above
        .values(sample as never)
        .compile();
      // Rows fill the parameters in row-major order below; a Kysely that compiled them in any
      // other order must fail here, not store values in the wrong columns.
      // The database's plugin may say how a column stores values (db/stored-values.ts): each
      // parameter keeps its encoder.
      const encoders = compiled.parameters.map((parameter, i) => {
        const encode = slotOf(parameter, sentinel(Math.floor(i / columns.length), i % columns.length));
        if (!encode) throw new Error(`unexpected parameter order in the ${table} insert template`);
        return encode;
      });
      if (compiled.parameters.length !== rows.length * columns.length)
        throw new Error(`unexpected parameter count in the ${table} insert template`);
      templates.set(rows.length, (template = { sql: compiled.sql, encoders }));
    }
    const parameters: unknown[] = new Array(rows.length * columns.length);
    let i = 0;
    for (const row of rows) for (const name of columns) parameters[i] = template.encoders[i++]?.(row[name] ?? null);
    await db.executeQuery(CompiledQuery.raw(template.sql, parameters));
  };
}
