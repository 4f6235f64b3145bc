import { type Compilable, CompiledQuery } from 'kysely';
import type { SqlDialect } from './dialect.js';
import type { Executor } from './types.js';
import { errorCode } from './unavailable.js';

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
  constructor(
    readonly waits: boolean,
    /** Kept prepared on its connection and run there by `execute` among the joined statements. */
    readonly kept = false,
  ) {}
}

/** The last parameter of a statement whose result is not read: it waits for the next one. */
const WAITS = new Joined(true);

/**
 * The last parameter of a statement that waits for the next one, as WAITS, but whose result is
 * read once it has gone (`executeHeld`): the locked reads of a group's statistics go with the
 * webhooks' read, not each in a round trip of its own (decisions §20.37). One a statement.
 */
export class Held extends Joined {
  #settle: ((result: { rows: readonly unknown[] } | Error) => void) | undefined;
  readonly #result: Promise<{ rows: readonly unknown[] } | Error>;
  /** Sends what waits on the connection, this statement with it (set by the connection that holds it). */
  send: (() => Promise<unknown>) | undefined;

  constructor(kept = false) {
    super(true, kept);
    this.#result = new Promise((resolve) => (this.#settle = resolve));
  }

  /** Its result, once the statements it went with came back; its error, or theirs, if they failed. */
  settle(result: { rows: readonly unknown[] } | Error): void {
    this.#settle?.(result);
    this.#settle = undefined;
    this.send = undefined;
  }

  /** What its statements came back with: its result, or the error they failed with (never rejects). */
  get settled(): Promise<{ rows: readonly unknown[] } | Error> {
    return this.#result;
  }

  /** Its rows; if it still waits, what waits is sent now, so that reading never waits for ever. */
  async rows<R>(): Promise<R[]> {
    // Errors are delivered as values and thrown here, so that a result nobody reads rejects nothing.
    if (this.send) await this.send();
    const result = await this.#result;
    if (result instanceof Error) throw result;
    // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- the rows of the statement run with R's shape
    return result.rows as R[];
  }
}
/** The last parameter of a statement that may take the waiting ones with it. */
const TAKES = new Joined(false);
/**
 * The last parameter of a statement that takes the waiting ones with it and is kept prepared: on
 * PostgreSQL an SQL-level `prepare` once a connection, then `execute name(literals…)` in the joined
 * text (db/pg-joined.ts, decisions §20.34). Only for a text that does not change with the values'
 * number, spells every parameter's type and casts every result column, as KEPT's.
 */
const KEPT_TAKES = new Joined(false, true);

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

/**
 * Runs a statement whose result is read later (`rows()` of what this returns): on PostgreSQL it
 * waits on the transaction's connection, as `executeWaiting`'s, and its rows come back with the
 * next statement sent there; `rows()` sends what waits if nothing has yet. Elsewhere it runs at once.
 */
export async function executeHeld<R>(
  db: Executor,
  dialect: Pick<SqlDialect, 'backend'>,
  query: Compilable<R>,
): Promise<HeldResult<R[]>> {
  if (dialect.backend !== 'postgres') return readAtOnce((await db.executeQuery(query.compile())).rows);
  const held = new Held();
  await executed(db, query, held);
  return resultOf<R>(held);
}

/** What a held statement gives (`executeHeld`): its rows once they are back. */
export interface HeldResult<R> {
  rows(): Promise<R>;
  /** The rows, when they were read at once (not held). */
  readonly ready?: R;
  /** Once its statements came back: the error they failed with, or undefined (never rejects). */
  readonly failure?: Promise<unknown>;
}

const readAtOnce = <R>(rows: R): HeldResult<R> => ({ ready: rows, rows: () => Promise.resolve(rows) });

const resultOf = <R>(held: Held): HeldResult<R[]> => ({
  rows: () => held.rows<R>(),
  failure: held.settled.then((result) => (result instanceof Error ? result : undefined)),
});

/**
 * Runs `sql` (PostgreSQL's text, `$n` parameters) with the statements waiting before it, in one
 * round trip, its plan kept on the connection (KEPT_TAKES). PostgreSQL only.
 */
export async function executeKeptTaking<R>(
  db: Pick<Executor, 'executeQuery'>,
  sql: string,
  parameters: readonly unknown[],
): Promise<R[]> {
  const result = await db.executeQuery<R>(CompiledQuery.raw(sql, [...parameters, KEPT_TAKES]));
  return result.rows;
}

/**
 * `executeKeptTaking`'s statement held (`executeHeld`): it waits on the transaction's connection
 * with its plan setting around it, and its rows come back with the next statement sent there.
 * PostgreSQL only.
 */
export async function executeKeptHeld<R>(
  db: Pick<Executor, 'executeQuery'>,
  sql: string,
  parameters: readonly unknown[],
): Promise<HeldResult<R[]>> {
  const held = new Held(true);
  await db.executeQuery(CompiledQuery.raw(sql, [...parameters, held]));
  return resultOf<R>(held);
}

/** PostgreSQL's 42883 (no operator for the types), 42846 (no such cast), 42804 (a type mismatch). */
const TYPE_MISMATCHES = new Set(['42883', '42846', '42804']);

/**
 * A read kept prepared (`executeKeptTaking`) in place of its untyped text, until the kept one fails
 * on a type: a column made a type that its spelled parameter type does not compare with, or that
 * does not cast to its spelled result type, fails the kept text where the untyped one still runs.
 * From then on this daemon sends the untyped text (decisions §20.34). Read by `db` in a transaction,
 * the failure is the transaction's (ingest retries it, as any failed group); in none (on the pool: a
 * gathered lookup, a route's suggestions), nothing would retry it, so the untyped text answers at
 * once, as it did before the read was kept: a token's lookup that failed answered every request of
 * its turn with a 500.
 */
export class KeptRead {
  #kept = true;

  async read<R>(db: Pick<Executor, 'isTransaction'>, kept: () => Promise<R>, plain: () => Promise<R>): Promise<R> {
    if (!this.#kept) return plain();
    try {
      return await kept();
    } catch (error) {
      if (!TYPE_MISMATCHES.has(errorCode(error))) throw error;
      this.#kept = false;
      if (db.isTransaction) throw error;
      return plain();
    }
  }

  /**
   * `read` of a held statement (`executeKeptHeld`): its failure on a type comes back with the
   * statement that took it, in its transaction, whose failure it is (read or not, this read is
   * then sent untyped: the failure may be another's of the same query, which cannot be told
   * apart, and the untyped text answers the same); one sent at once (no transaction) fails here.
   */
  async held<R>(
    db: Pick<Executor, 'isTransaction'>,
    kept: () => Promise<HeldResult<R>>,
    plain: () => Promise<R>,
  ): Promise<HeldResult<R>> {
    if (!this.#kept) return readAtOnce(await plain());
    let held: HeldResult<R>;
    try {
      held = await kept();
    } catch (error) {
      if (!TYPE_MISMATCHES.has(errorCode(error))) throw error;
      this.#kept = false;
      if (db.isTransaction) throw error;
      return readAtOnce(await plain());
    }
    void held.failure?.then((error) => {
      if (TYPE_MISMATCHES.has(errorCode(error))) this.#kept = false;
    });
    return held;
  }
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
