import { type Compilable, CompiledQuery } from 'kysely';
import type { SqlDialect } from './dialect.js';
import type { Db } from './open.js';
import { executeKeptTaking, KeptRead } from './joined.js';
import { SENTINEL_PREFIX, slotOf, type StoredValues } from './stored-values.js';

/**
 * What a gathered lookup needs of the app's dialect: how ids are stored, and whether it is
 * PostgreSQL, where the lookup is kept prepared (`kept`).
 */
export type Gathering = Pick<SqlDialect, 'stored' | 'backend'>;

/** Where a gathered lookup reads: on the pool, in no transaction (db/joined.ts, `KeptRead`). */
const ON_THE_POOL = { isTransaction: false } as const;

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
    /**
     * PostgreSQL's text of the lookup for an array of keys (`$1::text[]`, its columns cast): kept
     * prepared on each connection, one text whatever the keys' number, where `build`'s is planned
     * each time (db/joined.ts, `executeKeptTaking`; decisions §20.34). Until it fails on a type:
     * `build`'s then answers, that query's callers too.
     */
    readonly kept?: string;
  },
): (key: string) => Promise<R | undefined> {
  const { column, build, keyOf, kept } = lookup;
  const keptRead = new KeptRead();
  const templates = new Map<number, Template>();
  let waiting = new Map<string, Array<Waiter<R>>>();
  // A query in flight, or one due at the end of this turn: new callers only join `waiting`.
  let busy = false;

  const templateOf = (count: number) => {
    let template = templates.get(count);
    if (!template) templates.set(count, (template = compileTemplate(db, build, count)));
    return template;
  };

  function send(): void {
    if (waiting.size === 0) {
      busy = false;
      return;
    }
    let taken = waiting;
    if (waiting.size <= MOST_KEYS) waiting = new Map();
    else {
      taken = new Map([...waiting].slice(0, MOST_KEYS));
      for (const key of taken.keys()) waiting.delete(key);
    }
    const plain = async () => {
      const keys = [...taken.keys()];
      const template = templateOf(keys.length);
      const parameters = [...template.parameters];
      template.slots.forEach(({ position, encode }, i) => (parameters[position] = encode(keys[i])));
      // The raw query is the compiled one with its keys bound: its rows are still R.
      return db.executeQuery<R>(CompiledQuery.raw(template.sql, parameters));
    };
    const query = kept
      ? () =>
          keptRead.read(
            ON_THE_POOL,
            async () => ({
              rows: await executeKeptTaking<R>(db, kept, [[...taken.keys()].map((key) => stored.encode(column, key))]),
            }),
            plain,
          )
      : plain;
    // The next query goes when this one returns, or once it has been out too long; not twice.
    let next: (() => void) | undefined = () => {
      next = undefined;
      clearTimeout(stalled);
      send();
    };
    const stalled = setTimeout(() => next?.(), STALLED_AFTER_MS).unref();
    query()
      .then(({ rows }) => {
        const byKey = new Map(rows.map((row) => [keyOf(row), row]));
        for (const [key, waiters] of taken) for (const w of waiters) w.resolve(byKey.get(stored.readBack(column, key)));
      })
      // The query's error, or one reading its rows: every caller not yet answered gets it.
      .catch((error: unknown) => {
        for (const waiters of taken.values()) for (const w of waiters) w.reject(error);
      })
      .finally(() => next?.());
  }

  return (key) =>
    new Promise<R | undefined>((resolve, reject) => {
      const waiters = waiting.get(key);
      if (waiters) waiters.push({ resolve, reject });
      else waiting.set(key, [{ resolve, reject }]);
      if (!busy) {
        busy = true;
        setImmediate(send);
      }
    });
}
