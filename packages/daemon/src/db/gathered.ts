import { type Compilable, CompiledQuery } from 'kysely';
import type { Db } from './open.js';
import { SENTINEL_PREFIX, slotOf, type StoredValues } from './stored-values.js';

/** Most distinct keys one query asks for; the rest wait for the next one. */
const MOST_KEYS = 100;
/**
 * How long a query may be out before the calls waiting behind it get a query of their own. One
 * that never returns (a PostgreSQL connection gone half-open) would otherwise hold up every later
 * lookup, where one query a request held up only the requests on that connection.
 */
export const STALLED_AFTER_MS = 1_000;

/** What a gathered lookup runs on: the database, or (tests) one that watches its queries. */
export type LookupDb = Pick<Db, 'selectFrom' | 'executeQuery'>;

interface Waiter<R> {
  readonly resolve: (row: R | undefined) => void;
  readonly reject: (error: unknown) => void;
}

/** A query of `count` keys, compiled once: its SQL, its parameters, and where each key goes. */
interface Template {
  readonly sql: string;
  readonly parameters: readonly unknown[];
  /** For each key in order: its parameter's position, and how its column stores it. */
  readonly slots: ReadonlyArray<{ readonly position: number; readonly encode: (value: unknown) => unknown }>;
}

function compileTemplate<R>(
  db: LookupDb,
  build: (db: LookupDb, keys: readonly string[]) => Compilable<R>,
  count: number,
) {
  const sentinels = Array.from({ length: count }, (_, i) => `${SENTINEL_PREFIX}:key:${i}`);
  const query = build(db, sentinels).compile();
  const slots = sentinels.map((sentinel) => {
    const found = query.parameters.flatMap((p, position) => {
      const encode = slotOf(p, sentinel);
      return encode ? [{ position, encode }] : [];
    });
    if (found.length !== 1 || !found[0]) throw new Error('a gathered lookup binds each key exactly once');
    return found[0];
  });
  return { sql: query.sql, parameters: query.parameters, slots } satisfies Template;
}

/** One lookup's part of a query: its statement, and what to do with its rows or its failure. */
interface Taken {
  readonly query: CompiledQuery;
  readonly settle: (rows: readonly unknown[]) => void;
  readonly fail: (error: unknown) => void;
}

/**
 * When gathered lookups send their queries: one at a time, the next at the end of the turn in
 * which a call arrived when none is in flight, else as soon as the one in flight returns (or has
 * been out STALLED_AFTER_MS). Lookups that share a round (the token's and the source's on
 * PostgreSQL, decisions §20.24) send what each has waiting together, one statement each, in one
 * round trip; alone, a lookup has a round of its own.
 */
export interface LookupRound {
  /** A lookup that will be asked, at each send, for what it has waiting. */
  join(take: () => Taken | undefined): void;
  /** A call arrived: a send is due, if none is in flight or due already. */
  due(): void;
}

/** Runs a send's statements, one each for the lookups with calls waiting: each one's rows, or its failure. */
export type RoundRunner = (queries: readonly CompiledQuery[]) => ReadonlyArray<Promise<readonly unknown[]>>;

/** A round whose statements each go as a query of their own (a lookup alone has one a send). */
export const separately =
  (db: LookupDb): RoundRunner =>
  (queries) =>
    queries.map(async (query) => (await db.executeQuery(query)).rows);

/**
 * `run` sends each send's statements. With `gatherAfterAnswer`, the send after an answer waits
 * for the end of that turn, so that the calls its answer leads to (a source looked up once its
 * request's token is known) go in it rather than in the one after.
 */
export function lookupRound(run: RoundRunner, gatherAfterAnswer = false): LookupRound {
  const takes: Array<() => Taken | undefined> = [];
  // A query in flight, or one due at the end of this turn: new calls only wait.
  let busy = false;

  function send(): void {
    const taken = takes.map((take) => take()).filter((t): t is Taken => t !== undefined);
    if (taken.length === 0) {
      busy = false;
      return;
    }
    // The next query goes when this one returns, or once it has been out too long; not twice.
    let next: (() => void) | undefined = () => {
      next = undefined;
      clearTimeout(stalled);
      if (gatherAfterAnswer) setImmediate(send);
      else send();
    };
    const stalled = setTimeout(() => next?.(), STALLED_AFTER_MS).unref();
    const outcomes = run(taken.map((t) => t.query)).map((outcome, i) =>
      outcome
        .then((rows) => taken[i]?.settle(rows))
        // The query's error, or one reading its rows: every caller not yet answered gets it.
        .catch((error: unknown) => taken[i]?.fail(error)),
    );
    void Promise.all(outcomes).finally(() => next?.());
  }

  return {
    join: (take) => void takes.push(take),
    due() {
      if (busy) return;
      busy = true;
      setImmediate(send);
    },
  };
}

/**
 * A lookup by key that many requests share, one query at a time (docs/decisions.md §16.6).
 * Each call waits for the next query: the one sent when no query of this lookup is in flight, at
 * the end of the current turn of the event loop, or else as soon as the one in flight returns.
 * Every key waiting then goes into it (`where key in (…)`), each once, and every caller gets the
 * row of its key, or undefined. A caller is never answered by a query that began before it
 * called, and nothing is kept once answered: what it gathers is the calls that arrive together.
 * A query that fails rejects every caller waiting on it with its error (a database that cannot
 * answer is a 503 for each of them). A query out for longer than STALLED_AFTER_MS no longer holds
 * the next one back: its callers wait for it as they would have for a query of their own.
 * With `round`, shared with other lookups, "this lookup's query" is the round's (see LookupRound).
 *
 * `build` makes the query for a list of keys (Kysely's, so dialect-neutral, compiled once per
 * number of keys), of the column `column` (an id column, say); `keyOf` reads a row's key back,
 * matched to each caller's key as the database reads it back (`stored`: SQLite's UUIDs read
 * back lower case, PostgreSQL's text as it is).
 */
export function gatheredLookup<R>(
  db: LookupDb,
  stored: StoredValues,
  lookup: {
    readonly column: string;
    readonly build: (db: LookupDb, keys: readonly string[]) => Compilable<R>;
    readonly keyOf: (row: R) => string;
  },
  round: LookupRound = lookupRound(separately(db)),
): (key: string) => Promise<R | undefined> {
  const { column, build, keyOf } = lookup;
  const templates = new Map<number, Template>();
  let waiting = new Map<string, Array<Waiter<R>>>();

  const templateOf = (count: number) => {
    let template = templates.get(count);
    if (!template) templates.set(count, (template = compileTemplate(db, build, count)));
    return template;
  };

  round.join(() => {
    if (waiting.size === 0) return undefined;
    let taken = waiting;
    if (waiting.size <= MOST_KEYS) waiting = new Map();
    else {
      taken = new Map([...waiting].slice(0, MOST_KEYS));
      for (const key of taken.keys()) waiting.delete(key);
    }
    const keys = [...taken.keys()];
    const template = templateOf(keys.length);
    const parameters = [...template.parameters];
    template.slots.forEach(({ position, encode }, i) => (parameters[position] = encode(keys[i])));
    return {
      query: CompiledQuery.raw(template.sql, parameters),
      settle(rows) {
        // The rows of the compiled query with its keys bound: still R.
        // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- see above
        const byKey = new Map((rows as readonly R[]).map((row) => [keyOf(row), row]));
        for (const [key, waiters] of taken) for (const w of waiters) w.resolve(byKey.get(stored.readBack(column, key)));
      },
      fail(error) {
        for (const waiters of taken.values()) for (const w of waiters) w.reject(error);
      },
    };
  });

  return (key) =>
    new Promise<R | undefined>((resolve, reject) => {
      const waiters = waiting.get(key);
      if (waiters) waiters.push({ resolve, reject });
      else waiting.set(key, [{ resolve, reject }]);
      round.due();
    });
}
