import { type Compilable, CompiledQuery } from 'kysely';
import type { SqlDialect } from './dialect.js';
import type { Executor } from './types.js';

/**
 * Statements of one transaction sent to PostgreSQL together (decisions §20.22). node-postgres sends
 * one query at a time a connection and waits for its answer; an ingest transaction's statements
 * were 13 round trips, each a socket write and a wait. A statement whose result nobody reads (an
 * upsert, a row made empty) need not be sent alone: it waits on its connection and goes in front
 * of the next statement sent there, in one simple-protocol query (`a; b; c`), which PostgreSQL runs
 * statement by statement in that order, each with its own snapshot, as if sent one by one. So every
 * lock is taken in the order it was before, only in fewer round trips.
 *
 * A simple query has no parameters: the statements that go together have their values spelled as
 * literals, each value the text node-postgres would have sent as its parameter (its own
 * `prepareValue`) quoted by its own `escapeLiteral`, so a quote or a backslash in a value stays in
 * the value. Only statements marked so go that way; the rest keep their parameters, and what waits
 * is sent alone before them.
 */
export class Joined {
  constructor(readonly waits: boolean) {}
}

/** The last parameter of a statement whose result is not read: it waits for the next one. */
const WAITS = new Joined(true);
/** The last parameter of a statement that may take the waiting ones with it. */
const TAKES = new Joined(false);

/**
 * The last parameter of a statement kept parsed on its connection: on PostgreSQL a named prepared
 * statement, one name a text, so PostgreSQL parses it once a connection and, once it has planned it
 * five times, may keep a generic plan (decisions §20.30). Only for a text that does not change with
 * the values' number and that spells every parameter's type, so that a migration leaves it meaning
 * what an unnamed statement of the same text would (PostgreSQL analyses it again after one).
 */
export const KEPT = Symbol('kept parsed');

/**
 * A kept statement's `text[]` parameter: on PostgreSQL sent in the array's binary form
 * (db/pg-joined.ts, `textArray`), which escapes nothing.
 */
export class TextArray {
  constructor(readonly values: readonly unknown[]) {}
}

async function executed<R>(db: Executor, query: Compilable<R>, marker: Joined): Promise<R[]> {
  const { sql, parameters } = query.compile();
  const result = await db.executeQuery<R>(CompiledQuery.raw(sql, [...parameters, marker]));
  return result.rows;
}

/**
 * Runs a statement whose result is not read. On PostgreSQL it waits on the transaction's
 * connection and goes with the next statement sent there (db/pg-joined.ts, Waiting); its error, if any, is that
 * statement's. Elsewhere it runs at once.
 */
export async function executeWaiting(
  db: Executor,
  dialect: Pick<SqlDialect, 'backend'>,
  query: Compilable<unknown>,
): Promise<void> {
  if (dialect.backend === 'postgres') await executed(db, query, WAITS);
  else await db.executeQuery(query.compile());
}

/** Runs a statement, on PostgreSQL with the statements waiting before it, in one round trip. */
export async function executeTaking<R>(
  db: Executor,
  dialect: Pick<SqlDialect, 'backend'>,
  query: Compilable<R>,
): Promise<R[]> {
  if (dialect.backend === 'postgres') return executed(db, query, TAKES);
  return (await db.executeQuery(query.compile())).rows;
}
