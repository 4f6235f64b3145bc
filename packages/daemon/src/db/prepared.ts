import { type Compilable, CompiledQuery } from 'kysely';
import type { Db } from './open.js';

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
