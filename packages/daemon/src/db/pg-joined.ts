import { type Compilable, CompiledQuery, type PostgresQueryResult } from 'kysely';
import type pg from 'pg';
import { escapeLiteral, prepareValue } from 'pg/lib/utils.js';
import type { SqlDialect } from './dialect.js';
import type { Executor } from './types.js';

/**
 * Statements of one transaction sent to PostgreSQL together (decisions §20.21). node-postgres sends
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
class Joined {
  constructor(readonly waits: boolean) {}
}

/** The last parameter of a statement whose result is not read: it waits for the next one. */
const WAITS = new Joined(true);
/** The last parameter of a statement that may take the waiting ones with it. */
const TAKES = new Joined(false);

/**
 * The last parameter of a statement kept parsed on its connection (a named prepared statement):
 * PostgreSQL parses it once a connection, and once it has planned it five times, may keep a generic
 * plan instead of planning each time. For the few statements every group runs, in a bounded number
 * of shapes (decisions §20.21).
 */
export const KEPT = Symbol('kept parsed');

/** Names of statements kept parsed, by their text: the same text has the same name on every connection. */
const names = new Map<string, string>();
const nameOf = (sql: string): string => {
  let name = names.get(sql);
  if (!name) names.set(sql, (name = `tapline_${names.size + 1}`));
  return name;
};

/** Each `$n` of Kysely's PostgreSQL SQL replaced by its parameter as a literal. */
export function inlined(sql: string, parameters: readonly unknown[]): string {
  let used = 0;
  const text = sql.replace(/\$(\d+)/g, (_, n: string) => {
    const index = Number(n) - 1;
    if (index < 0 || index >= parameters.length) throw new Error(`no parameter ${n} for a joined statement`);
    used = Math.max(used, index + 1);
    return literal(parameters[index]);
  });
  if (used !== parameters.length) throw new Error('a joined statement does not use all of its parameters');
  return text;
}

/** What makes `escapeLiteral` change a text: most values (ids, times, numbers) have neither. */
const QUOTE_OR_BACKSLASH = /['\\]/;

/**
 * A value as a literal: the text its parameter would have been, quoted as `escapeLiteral` quotes
 * it (a text without a quote or a backslash is only wrapped, as it would be; bytes in bytea's hex
 * form, in an `E'…'` string as `escapeLiteral` writes a text with a backslash).
 */
export function literal(value: unknown): string {
  const prepared = typeof value === 'string' ? value : prepareValue(value);
  if (prepared === null) return 'null';
  if (typeof prepared !== 'string') return ` E'\\\\x${prepared.toString('hex')}'`;
  return QUOTE_OR_BACKSLASH.test(prepared) ? escapeLiteral(prepared) : `'${prepared}'`;
}

const nothing: PostgresQueryResult<never> = { command: 'SELECT', rowCount: 0, rows: [] };

/**
 * What a connection holds back: statements waiting for the next one. `begin` waits too, so that a
 * transaction's first statement, when it may, carries it. Used by the client Kysely's PostgresDialect
 * is given (db/pg-copy.ts); one a connection, used by one query at a time.
 */
export class Waiting {
  #statements: string[] = [];
  /** Between a `begin` and its `commit` or `rollback`: only there may a statement wait. */
  #open = false;

  /**
   * Runs one query as Kysely hands it over: held back, sent with what waits, or sent alone after
   * what waits; `run` sends a query as node-postgres would.
   */
  async query(
    client: pg.PoolClient,
    sql: string,
    parameters: readonly unknown[],
    run: (sql: string, parameters: readonly unknown[]) => Promise<unknown>,
  ): Promise<unknown> {
    const last = parameters[parameters.length - 1];
    if (last instanceof Joined) {
      const text = inlined(sql, parameters.slice(0, -1));
      // Outside a transaction nothing comes after it for sure: it goes at once.
      if (last.waits && this.#open) {
        this.#statements.push(text);
        return nothing;
      }
      return this.#send(client, text);
    }
    if (parameters.length > 0) {
      if (this.#statements.length > 0) await this.#send(client, undefined);
      if (last !== KEPT) return run(sql, parameters);
      return client.query({ name: nameOf(sql), text: sql, values: parameters.slice(0, -1) });
    }
    if (sql === 'begin') {
      this.#open = true;
      this.#statements.push(sql);
      return nothing;
    }
    if (sql === 'commit' || sql === 'rollback') this.#open = false;
    if (sql === 'rollback' && this.#statements.length > 0) {
      const begun = this.#statements[0] !== 'begin';
      // What waited is dropped with the transaction; a server that never heard of it hears nothing.
      this.#statements = [];
      if (!begun) return nothing;
    }
    return this.#statements.length > 0 ? this.#send(client, sql) : run(sql, parameters);
  }

  /** What waits, then `text` if any, as one simple query: the last statement's result. */
  async #send(client: pg.PoolClient, text: string | undefined): Promise<pg.QueryResult | typeof nothing> {
    const statements = text === undefined ? this.#statements : [...this.#statements, text];
    this.#statements = [];
    if (statements.length === 0) return nothing;
    // Without parameters node-postgres sends the simple protocol: one result a statement, an array
    // when there are several.
    // @types/pg knows only the one result.
    const results: unknown = await client.query(statements.join(';\n'));
    // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- see above
    const all = (Array.isArray(results) ? results : [results]) as pg.QueryResult[];
    return all[all.length - 1] ?? nothing;
  }

  /** Before the connection goes back to its pool: nothing may wait there for another user. */
  forget(): void {
    this.#statements = [];
    this.#open = false;
  }
}

async function executed<R>(db: Executor, query: Compilable<R>, marker: Joined): Promise<R[]> {
  const { sql, parameters } = query.compile();
  const result = await db.executeQuery<R>(CompiledQuery.raw(sql, [...parameters, marker]));
  return result.rows;
}

/**
 * Runs a statement whose result is not read. On PostgreSQL it waits on the transaction's
 * connection and goes with the next statement sent there (see Waiting); its error, if any, is that
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
