import type { PostgresQueryResult } from 'kysely';
import type pg from 'pg';
import { escapeLiteral, prepareValue } from 'pg/lib/utils.js';
import { Held, Joined, KEPT, TextArray } from './joined.js';
import { errorCode } from './unavailable.js';

/**
 * The PostgreSQL side of db/joined.ts: the client Kysely is given (db/pg-copy.ts) holds back the
 * statements marked to wait and sends them with the next one, their values spelled as literals.
 * Loaded with node-postgres, by a PostgreSQL database's first connection (decisions §20.17).
 */

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

/** Names of statements kept parsed, by their text: the same text has the same name on every connection. */
const names = new Map<string, string>();
const nameOf = (sql: string): string => {
  let name = names.get(sql);
  if (!name) names.set(sql, (name = `tapline_kept_${names.size + 1}`));
  return name;
};

/**
 * Names of statements prepared by SQL (`prepare`, kept by the joined statements), by their text. Apart
 * from the protocol's names above: both are in one namespace on the server, and node-postgres knows
 * only its own.
 */
const preparedNames = new Map<string, string>();
const preparedNameOf = (sql: string): string => {
  let name = preparedNames.get(sql);
  if (!name) preparedNames.set(sql, (name = `tapline_joined_${preparedNames.size + 1}`));
  return name;
};

/** The plan a kept statement runs with: its generic one, made once (see Waiting, `#executeKept`). */
const FORCE_GENERIC = 'set plan_cache_mode = force_generic_plan';
const RESET_PLAN_MODE = 'reset plan_cache_mode';

/** PostgreSQL's 26000: `prepared statement "…" does not exist`. */
const INVALID_STATEMENT_NAME = '26000';
/** PostgreSQL's 42P05: `prepared statement "…" already exists`. */
const ALREADY_PREPARED = '42P05';

/** PostgreSQL's OID of `text`, an array's element type in its binary form. */
const TEXT_OID = 25;

/**
 * A `text[]` in PostgreSQL's binary form, which node-postgres sends as it is (a Buffer): each element
 * its UTF-8 bytes after their length, NULL a length of -1. In the array's text form every quote
 * and backslash of every value is escaped, by a regular expression a character: for JSON bodies,
 * about 45 ms of the daemon's one thread a MiB, where a parameter cost nothing (docs/performance.md).
 * The bytes are those node-postgres writes for a text parameter, and PostgreSQL checks them as it
 * checks a parameter's (a NUL: 22021).
 */
export function textArray(values: readonly unknown[]): Buffer {
  const texts = values.map((value) => prepareValue(value));
  let bytes = 20;
  for (const text of texts) bytes += 4 + (text === null ? 0 : Buffer.byteLength(text));
  const array = Buffer.allocUnsafe(bytes);
  array.writeInt32BE(1, 0); // one dimension
  array.writeInt32BE(texts.includes(null) ? 1 : 0, 4);
  array.writeUInt32BE(TEXT_OID, 8);
  array.writeInt32BE(texts.length, 12);
  array.writeInt32BE(1, 16); // its lower bound
  let at = 20;
  for (const text of texts) {
    if (text === null) {
      at = array.writeInt32BE(-1, at);
      continue;
    }
    const length = typeof text === 'string' ? array.write(text, at + 4) : text.copy(array, at + 4);
    array.writeInt32BE(length, at);
    at += 4 + length;
  }
  return array;
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

/** A held statement sent at once (outside a transaction, or with its parameters) settles with its own answer. */
function settled<T>(marker: Joined, sent: Promise<T>): Promise<T> {
  if (marker instanceof Held)
    sent.then(
      // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- node-postgres' result, or nothing()
      (result) => marker.settle(result as { rows: readonly unknown[] }),
      (error: unknown) => marker.settle(asError(error)),
    );
  return sent;
}

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

/**
 * Whether a 26000 names this prepared statement: its message does, in the server's language too
 * (a held one may have gone with it, and only the one named is gone). `otherwise` when it names
 * none of Tapline's.
 */
const namedIn = (error: unknown, name: string, otherwise = false): boolean => {
  const message = error instanceof Error ? error.message : '';
  if (new RegExp(`\\b${name}\\b`).test(message)) return true;
  return otherwise && !/\btapline_joined_\d+\b/.test(message);
};

/** The answer to a statement held back: nothing read, a new object each time (a caller may keep it). */
const nothing = (): PostgresQueryResult<never> => ({ command: 'SELECT', rowCount: 0, rows: [] });

const holdsNul = (value: unknown): boolean =>
  (typeof value === 'string' && value.includes('\0')) || (Array.isArray(value) && value.some(holdsNul));

/**
 * What a connection holds back: statements waiting for the next one. `begin` waits too, so that a
 * transaction's first statement, when it may, carries it. Used by the client Kysely's PostgresDialect
 * is given (db/pg-copy.ts); one a connection, used by one query at a time.
 */
export class Waiting {
  #statements: string[] = [];
  /** The held statements among them (db/joined.ts, `executeHeld`), by their place. */
  #held: { readonly at: number; readonly held: Held; readonly kept?: string }[] = [];
  /** Between a `begin` and its `commit` or `rollback`: only there may a statement wait. */
  #open = false;
  /**
   * The statements this connection has prepared by SQL (db/joined.ts, KEPT_TAKES). A connection that
   * ends is dropped by its pool, and its replacement has a Waiting of its own, so a new connection
   * prepares them again.
   */
  readonly #prepared = new Set<string>();

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
      const values = parameters.slice(0, -1);
      // PostgreSQL refuses a NUL in a text parameter (22021) but cuts the whole message at one in a
      // query's text (08P01, read as an outage): such a statement keeps its parameters.
      if (values.some(holdsNul)) return settled(last, this.query(client, sql, values, run));
      if (last.kept) return this.#executeKept(client, sql, values, last);
      const text = inlined(sql, values);
      // Outside a transaction nothing comes after it for sure: it goes at once.
      if (last.waits && this.#open) {
        this.#statements.push(text);
        if (last instanceof Held) {
          this.#held.push({ at: this.#statements.length - 1, held: last });
          last.send = () => this.#send(client, undefined);
        }
        return nothing();
      }
      return settled(last, this.#send(client, text));
    }
    if (parameters.length > 0) {
      if (this.#statements.length > 0) await this.#send(client, undefined);
      if (last !== KEPT) return run(sql, parameters);
      // node-postgres parses it under its name once a connection (a new connection, after a restart,
      // parses it again; a parse that fails is not remembered) and then only binds and executes it.
      // Its values are spelled here, before it is sent: where node-postgres fails to spell one (an
      // array's text longer than a string may be) it closes the statement on the server but still
      // holds it parsed, and every later use on the connection would fail (26000).
      const values = parameters
        .slice(0, -1)
        .map((value) => (value instanceof TextArray ? textArray(value.values) : prepareValue(value)));
      return client.query({ name: nameOf(sql), text: sql, values });
    }
    if (sql === 'begin') {
      this.#open = true;
      this.#statements.push(sql);
      return nothing();
    }
    if (sql === 'commit' || sql === 'rollback') this.#open = false;
    if (sql === 'rollback' && this.#statements.length > 0) {
      const begun = this.#statements[0] !== 'begin';
      // What waited is dropped with the transaction; a server that never heard of it hears nothing.
      this.#drop();
      if (!begun) return nothing();
    }
    // Back to a savepoint: what waits came after it (the savepoint took what waited before), and is
    // undone with it; sent in front, a failing one would fail the `rollback to` that undoes it.
    if (/^rollback to /i.test(sql)) this.#drop();
    return this.#statements.length > 0 ? this.#send(client, sql) : run(sql, parameters);
  }

  /**
   * A kept statement (db/joined.ts, KEPT_TAKES) run by `execute`, its values as literals, with what
   * waits. Prepared first, alone, once a connection: what waits goes before it (no reordering), and
   * a `prepare` sent alone either ran or did not, where one among other statements would leave that
   * unknown when a statement before it failed. A prepared statement outlives a rollback, so one that
   * succeeded is remembered whatever the transaction does; one that failed is not, and its error is
   * the transaction's, retried or answered as before.
   */
  async #executeKept(client: pg.PoolClient, sql: string, values: readonly unknown[], marker: Joined): Promise<unknown> {
    const name = preparedNameOf(sql);
    if (!this.#prepared.has(name)) {
      if (this.#statements.length > 0) await this.#send(client, undefined);
      try {
        await client.query(`prepare ${name} as ${sql}`);
      } catch (error) {
        // The server has it though this connection had forgotten it (below): it is prepared, and
        // this statement's failure is its transaction's, as any.
        if (errorCode(error) === ALREADY_PREPARED) this.#prepared.add(name);
        throw error;
      }
      this.#prepared.add(name);
    }
    const execute = values.length > 0 ? `execute ${name}(${values.map(literal).join(', ')})` : `execute ${name}`;
    // PostgreSQL keeps a generic plan only when it costs less than the custom ones: an array
    // parameter's generic plan is costed for ten elements, a custom one for the one or two a group
    // has, so it would plan each time. The setting goes back as it was after the statement; if the
    // statement fails, its transaction's rollback takes the setting back.
    this.#statements.push(FORCE_GENERIC);
    if (marker instanceof Held && this.#open) {
      this.#statements.push(execute);
      this.#held.push({ at: this.#statements.length - 1, held: marker, kept: name });
      marker.send = () => this.#send(client, undefined);
      this.#statements.push(RESET_PLAN_MODE);
      return nothing();
    }
    try {
      return await settled(marker, this.#send(client, execute, [RESET_PLAN_MODE]));
    } catch (error) {
      // The server no longer has it though this connection prepared it: something deallocated it
      // (`discard all`, `deallocate`: a pooler's reset, a hand on the session). Forgotten, it is
      // prepared again on its next use; remembered, every later use on the connection failed, a 500
      // each, until the connection closed. This statement's failure is its transaction's, as any.
      if (errorCode(error) === INVALID_STATEMENT_NAME && namedIn(error, name, true)) this.#prepared.delete(name);
      throw error;
    }
  }

  /**
   * What waits, then `text` if any, then `after`, as one simple query: `text`'s result (the last
   * statement's when there is none).
   */
  async #send(
    client: pg.PoolClient,
    text: string | undefined,
    after: readonly string[] = [],
  ): Promise<pg.QueryResult | ReturnType<typeof nothing>> {
    const statements = text === undefined ? this.#statements : [...this.#statements, text, ...after];
    const held = this.#held;
    this.#statements = [];
    this.#held = [];
    // Gone: reading one now waits for this query, and sends nothing else.
    for (const one of held) one.held.send = undefined;
    if (statements.length === 0) return nothing();
    let results: unknown;
    try {
      // Without parameters node-postgres sends the simple protocol: one result a statement, an array
      // when there are several.
      results = await client.query(statements.join(';\n'));
    } catch (error) {
      // A statement failed, and PostgreSQL ran none after it: each held one reads this error. A kept
      // one the server no longer has is prepared again at its next use (see #executeKept).
      if (errorCode(error) === INVALID_STATEMENT_NAME)
        for (const { kept } of held) if (kept !== undefined && namedIn(error, kept, true)) this.#prepared.delete(kept);
      for (const one of held) one.held.settle(asError(error));
      throw error;
    }
    // @types/pg knows only the one result.
    // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- see above
    const all = (Array.isArray(results) ? results : [results]) as pg.QueryResult[];
    // One result a statement is what places a held one's; a miscount would hand it another's rows.
    const counted = all.length === statements.length;
    for (const { at, held: one } of held)
      one.settle(
        counted
          ? (all[at] ?? nothing())
          : new Error('a joined query gave back more or fewer results than it had statements'),
      );
    return all[all.length - 1 - (text === undefined ? 0 : after.length)] ?? nothing();
  }

  /** What waits dropped unsent, with its transaction or back to a savepoint: a held one reads so. */
  #drop(): void {
    for (const { held } of this.#held) held.settle(new Error('a held statement was dropped with its transaction'));
    this.#statements = [];
    this.#held = [];
  }

  /** Before the connection goes back to its pool: nothing may wait there for another user. */
  forget(): void {
    this.#drop();
    this.#open = false;
  }
}
