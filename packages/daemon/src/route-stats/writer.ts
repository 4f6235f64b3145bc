import { type Compilable, sql } from 'kysely';
import type { SqlDialect } from '../db/dialect.js';
import type { Executor } from '../db/open.js';
import { executeHeld, executeTaking, executeWaiting } from '../db/joined.js';
import { ShapedStatements, type StandIn } from '../db/shaped.js';
import {
  addStored,
  type BucketTotals,
  type Keyed,
  keyOf,
  type StatInput,
  type StoredMinute,
  numbersOf,
  totalsOf,
  type Totals,
} from './rollup.js';
import { LATE_MS, raiseEpochs } from './closed-blocks.js';
import { SKETCH_MERGE_FUNCTION, type Tally } from './sketch.js';
import { addStatsDirect } from './sqlite-stats-writer.js';

/** Keys per statement: seven bound values each in the look-up, thirteen in the upsert. */
const KEYS_PER_STATEMENT = 200;

export function* chunks<T>(rows: readonly T[]): Generator<T[]> {
  for (let i = 0; i < rows.length; i += KEYS_PER_STATEMENT) yield rows.slice(i, i + KEYS_PER_STATEMENT);
}

/** A row's numbers replaced by the ones given (read, merged and written back: PostgreSQL, a rule's move). */
const replaced = {
  count: sql.ref<number>('excluded.count'),
  latency_max: sql.ref<number>('excluded.latency_max'),
  latency_sum: sql.ref<number>('excluded.latency_sum'),
  request_bytes: sql.ref<number>('excluded.request_bytes'),
  response_bytes: sql.ref<number>('excluded.response_bytes'),
  sketch: sql.ref<Uint8Array>('excluded.sketch'),
};

/**
 * A row's numbers added to in the upsert itself, the sketches merged by SQLite's
 * `SKETCH_MERGE_FUNCTION` (db/sqlite.ts): SQLite only.
 */
const addedTo = (table: 'route_stats' | 'route_rollups') => {
  const column = (name: string) => sql.ref(`${table}.${name}`);
  return {
    count: sql<number>`${column('count')} + excluded.count`,
    latency_max: sql<number>`max(${column('latency_max')}, excluded.latency_max)`,
    latency_sum: sql<number>`${column('latency_sum')} + excluded.latency_sum`,
    request_bytes: sql<number>`${column('request_bytes')} + excluded.request_bytes`,
    response_bytes: sql<number>`${column('response_bytes')} + excluded.response_bytes`,
    sketch: sql<Uint8Array>`${sql.raw(SKETCH_MERGE_FUNCTION)}(${column('sketch')}, excluded.sketch)`,
  };
};

/** What a write reads of a row's totals: its key, its numbers, and its sketch's stored form. */
export type WrittenTotals = Keyed & Omit<Totals, 'sketch'> & { readonly sketch: Pick<Tally, 'encode'> };

/** How a write meets a stored row: its numbers replace the row's, or are added to them. */
type WriteMode = 'replace' | 'add';

export type StoredRow = StoredMinute &
  Pick<BucketTotals, 'sourceId' | 'start' | 'routeId' | 'method' | 'domainId' | 'statusClass'> & {
    readonly span: number;
  };

/**
 * The statements of one table: make missing rows (PostgreSQL), read them locked in key order,
 * write them back, and delete one (a row a rule's move left empty, move-stats.ts).
 */
export interface Level {
  insertEmpty(trx: Executor, part: readonly Keyed[]): Statement;
  /**
   * With `joined`, on PostgreSQL, the statements waiting on the connection go with this read
   * (db/pg-joined.ts); with `shaped` too, the read is compiled once a shape (db/shaped.ts).
   */
  locked(
    trx: Executor,
    dialect: SqlDialect,
    part: readonly Keyed[],
    joined?: boolean,
    shaped?: ShapedStatements,
  ): Promise<StoredRow[]>;
  /**
   * The same read on PostgreSQL, held on the connection: sent with the next statement, its rows
   * read once they are back (db/joined.ts, `executeHeld`).
   */
  held(trx: Executor, dialect: SqlDialect, part: readonly Keyed[], shaped: ShapedStatements): Promise<Rows>;
  write(trx: Executor, part: readonly WrittenTotals[], mode: WriteMode): Statement;
  remove(trx: Executor, key: Keyed): Promise<unknown>;
}

/** A statement built, not yet run: run now (`execute`), or left to wait for the next (db/pg-joined.ts). */
type Statement = Compilable<unknown> & { execute(): Promise<unknown> };

/** Rows of a read held on its connection: read once they are back (db/joined.ts, `executeHeld`). */
interface Rows {
  rows(): Promise<StoredRow[]>;
}

/** A minute row's key as its columns. */
const minuteKey = (t: Keyed) => ({
  traffic_source_id: t.sourceId,
  minute: t.start,
  route_id: t.routeId,
  method: t.method,
  domain_id: t.domainId,
  status_class: t.statusClass,
});

/** An hour or day row's key as its columns. */
const rollupKey = (t: Keyed) => ({
  traffic_source_id: t.sourceId,
  span: t.span,
  start: t.start,
  route_id: t.routeId,
  method: t.method,
  domain_id: t.domainId,
  status_class: t.statusClass,
});

/** The minute rows of `part`, read locked in key order (every writer's order). */
const minutesLocked = (trx: Executor, dialect: SqlDialect, part: readonly Keyed[]) =>
  dialect.lockRows(
    trx
      .selectFrom('route_stats')
      .selectAll()
      .where((eb) => eb.or(part.map((t) => eb.and(minuteKey(t)))))
      .orderBy('traffic_source_id')
      .orderBy('minute')
      .orderBy('route_id')
      .orderBy('method')
      .orderBy('domain_id')
      .orderBy('status_class'),
    'wait',
  );

type Selected<Q> = Q extends Compilable<infer R> ? R : never;

const fromMinute = (r: Selected<ReturnType<typeof minutesLocked>>): StoredRow => ({
  ...r,
  sourceId: r.traffic_source_id,
  span: 1,
  start: r.minute,
  routeId: r.route_id,
  domainId: r.domain_id,
  statusClass: r.status_class,
});

/** The hour and day rows of `part`, read locked in key order (every writer's order). */
const rollupsLocked = (trx: Executor, dialect: SqlDialect, part: readonly Keyed[]) =>
  dialect.lockRows(
    trx
      .selectFrom('route_rollups')
      .selectAll()
      .where((eb) => eb.or(part.map((t) => eb.and(rollupKey(t)))))
      .orderBy('traffic_source_id')
      .orderBy('span')
      .orderBy('start')
      .orderBy('route_id')
      .orderBy('method')
      .orderBy('domain_id')
      .orderBy('status_class'),
    'wait',
  );

const fromRollup = (r: Selected<ReturnType<typeof rollupsLocked>>): StoredRow => ({
  ...r,
  sourceId: r.traffic_source_id,
  span: r.span,
  routeId: r.route_id,
  domainId: r.domain_id,
  statusClass: r.status_class,
});

/** A level's locked read, at once (`locked`) or held (`held`), from its builder and its rows' reading. */
function lockedReads<R>(
  name: string,
  build: (trx: Executor, dialect: SqlDialect, part: readonly Keyed[]) => Compilable<R> & { execute(): Promise<R[]> },
  from: (row: R) => StoredRow,
): Pick<Level, 'locked' | 'held'> {
  return {
    async locked(trx, dialect, part, joined = false, shaped) {
      const rows = await readLocked(trx, dialect, name, part, joined, shaped, (part) => build(trx, dialect, part));
      return rows.map(from);
    },
    async held(trx, dialect, part, shaped) {
      const held = await readHeld(trx, dialect, name, part, shaped, (part) => build(trx, dialect, part));
      return { rows: async () => (await held.rows()).map(from) };
    },
  };
}

const minutes: Level = {
  insertEmpty: (trx, part) =>
    trx
      .insertInto('route_stats')
      .values(part.map(minuteKey))
      .onConflict((oc) => oc.doNothing()),
  ...lockedReads('route_stats.locked', minutesLocked, fromMinute),
  write: (trx, part, mode) =>
    trx
      .insertInto('route_stats')
      .values(part.map((t) => ({ ...minuteKey(t), ...numbersOf(t) })))
      .onConflict((oc) =>
        oc
          .columns(['traffic_source_id', 'minute', 'route_id', 'method', 'domain_id', 'status_class'])
          .doUpdateSet(mode === 'replace' ? replaced : addedTo('route_stats')),
      ),
  remove: (trx, t) =>
    trx
      .deleteFrom('route_stats')
      .where((eb) => eb.and(minuteKey(t)))
      .execute(),
};

const rollups: Level = {
  insertEmpty: (trx, part) =>
    trx
      .insertInto('route_rollups')
      .values(part.map(rollupKey))
      .onConflict((oc) => oc.doNothing()),
  ...lockedReads('route_rollups.locked', rollupsLocked, fromRollup),
  write: (trx, part, mode) =>
    trx
      .insertInto('route_rollups')
      .values(part.map((t) => ({ ...rollupKey(t), ...numbersOf(t) })))
      .onConflict((oc) =>
        oc
          .columns(['traffic_source_id', 'span', 'start', 'route_id', 'method', 'domain_id', 'status_class'])
          .doUpdateSet(mode === 'replace' ? replaced : addedTo('route_rollups')),
      ),
  remove: (trx, t) =>
    trx
      .deleteFrom('route_rollups')
      .where((eb) => eb.and(rollupKey(t)))
      .execute(),
};

/** Minute rows, then hour and day rows: the order every writer locks them in. */
export const LEVELS = [
  { name: 'route_stats', level: minutes, holds: (t: Keyed) => t.span === 1 },
  { name: 'route_rollups', level: rollups, holds: (t: Keyed) => t.span !== 1 },
] as const;

/**
 * PostgreSQL's statistics statements, compiled once a shape (db/shaped.ts): their text depends on
 * how many keys a group has, never on the keys, so the builder and the compiler ran again for
 * every group where a template's values can be filled in (decisions §20.29).
 */
const SHAPED = new ShapedStatements();

/** A level's writes on PostgreSQL, each compiled once a shape by `statements` (db/shaped.ts). */
export const shapedLevel = (statements: ShapedStatements, { name, level }: (typeof LEVELS)[number]) => ({
  insertEmpty: (trx: Executor, part: readonly Keyed[]) =>
    statements.statement(trx, `${name}.insertEmpty`, keyValues(part), (at) =>
      level.insertEmpty(trx, keyRows(part, at)),
    ),
  write: (trx: Executor, part: readonly BucketTotals[]) => {
    const { values, sketches } = totalsValues(part);
    return statements.statement(trx, `${name}.write`, values, (at) =>
      level.write(trx, totalsRows(part, sketches, at), 'replace'),
    );
  },
});

/**
 * A level's locked read of `part`, built by `build`: with `joined` (PostgreSQL) the statements
 * waiting on the connection go with it (db/pg-joined.ts), and with `shaped` it is compiled once a
 * shape (db/shaped.ts).
 */
async function readLocked<R>(
  trx: Executor,
  dialect: SqlDialect,
  name: string,
  part: readonly Keyed[],
  joined: boolean,
  shaped: ShapedStatements | undefined,
  build: (part: readonly Keyed[]) => Compilable<R> & { execute(): Promise<R[]> },
): Promise<R[]> {
  if (!joined) return build(part).execute();
  const query = shaped ? shaped.statement(trx, name, keyValues(part), (at) => build(keyRows(part, at))) : build(part);
  return executeTaking(trx, dialect, query);
}

/** Every key's values, one after the other, in the order `keyRows` reads them. */
function keyValues(part: readonly Keyed[], width = KEY_WIDTH): unknown[] {
  const values: unknown[] = new Array(part.length * width);
  part.forEach((t, r) => {
    const i = r * width;
    values[i] = t.sourceId;
    values[i + 1] = t.span;
    values[i + 2] = t.start;
    values[i + 3] = t.routeId;
    values[i + 4] = t.method;
    values[i + 5] = t.domainId;
    values[i + 6] = t.statusClass;
  });
  return values;
}
const KEY_WIDTH = 7;

/** The keys of `part` for a shape's build: each value through `at` at its place in `keyValues`. */
const keyRows = (part: readonly Keyed[], at: StandIn, width = KEY_WIDTH): Keyed[] =>
  part.map((t, r) => {
    const i = r * width;
    return {
      sourceId: at(i, t.sourceId),
      span: at(i + 1, t.span),
      start: at(i + 2, t.start),
      routeId: at(i + 3, t.routeId),
      method: at(i + 4, t.method),
      domainId: at(i + 5, t.domainId),
      statusClass: at(i + 6, t.statusClass),
    };
  });

/** A row's key, then its numbers and its sketch in its stored form, row after row. */
const TOTALS_WIDTH = KEY_WIDTH + 6;
function totalsValues(part: readonly BucketTotals[]): { values: unknown[]; sketches: Uint8Array[] } {
  const values = keyValues(part, TOTALS_WIDTH);
  const sketches = part.map((t, r) => {
    const i = r * TOTALS_WIDTH + KEY_WIDTH;
    values[i] = t.count;
    values[i + 1] = t.latencyMax;
    values[i + 2] = t.latencySum;
    values[i + 3] = t.requestBytes;
    values[i + 4] = t.responseBytes;
    return (values[i + 5] = t.sketch.encode());
  });
  return { values, sketches };
}

/** The totals of `part` for a shape's build, each value through `at` at its place in `totalsValues`. */
const totalsRows = (part: readonly BucketTotals[], sketches: readonly Uint8Array[], at: StandIn): WrittenTotals[] =>
  keyRows(part, at, TOTALS_WIDTH).map((key, r) => {
    const t = part[r]!;
    const i = r * TOTALS_WIDTH + KEY_WIDTH;
    const sketch = at(i + 5, sketches[r]!);
    return {
      ...key,
      count: at(i, t.count),
      latencyMax: at(i + 1, t.latencyMax),
      latencySum: at(i + 2, t.latencySum),
      requestBytes: at(i + 3, t.requestBytes),
      responseBytes: at(i + 4, t.responseBytes),
      sketch: { encode: () => sketch },
    };
  });

/**
 * Adds the entries of one ingest transaction to the minute, hour and day rows, in that
 * transaction, so the numbers and the entries commit together or not at all (docs/decisions.md
 * §21.2, §21.5). A sketch cannot be added in SQL, so each row is read, merged and written back;
 * exact with several writers:
 * - PostgreSQL: missing rows are first inserted empty (`on conflict do nothing`, which waits for
 *   another transaction inserting the same key), then all of the group's rows are read `for
 *   update` in key order, so a second writer waits for the first's commit and reads its result.
 *   Minute rows are always locked before hour and day rows, each in key order, after the count
 *   rollup, so writers never deadlock.
 * - SQLite: one writer at a time (transactions begin IMMEDIATE), and the upsert adds to a stored
 *   row itself (`addedTo`), so no row is read: a read of each row was most of ingest's cost of the
 *   statistics (decisions §21.6).
 *
 * Entries created before `lateBefore` (`lateBeforeAt`) change numbers a daemon may remember of a
 * closed window: their sources' counters are raised last, in the same transaction (closed-blocks.ts).
 */
export async function addStats(
  trx: Executor,
  dialect: SqlDialect,
  inputs: readonly StatInput[],
  lateBefore: string,
): Promise<void> {
  const write = await (await lockStats(trx, dialect, inputs, lateBefore))();
  await write();
}

/** What is left of adding statistics once their rows are locked and merged: writing them back. */
export type StatsWrite = () => Promise<void>;
/** What is left once the locked reads are on their way: merging what they read. */
export type StatsMerge = () => Promise<StatsWrite>;

/** Statistics added already: nothing left to merge or to write. */
const DONE: StatsMerge = () => Promise.resolve(() => Promise.resolve());

/**
 * `addStats` in three steps, so that an ingest group's statistics take no round trip of their own
 * on PostgreSQL (decisions §20.37). This one makes each part's missing rows and reads them locked,
 * held on the connection, in the order `addStats` sends them, so the locks are taken as before,
 * then raises the late entries' counters (statements of their own, rare: entries older than
 * `lateBefore`). What it returns reads the rows once they have gone with a later statement (the
 * webhooks' read), sending them if nothing has, and merges them; what that returns writes them
 * back, which locks nothing more, so it can wait for the commit. On SQLite, one writer, the first
 * step writes the rows.
 */
export async function lockStats(
  trx: Executor,
  dialect: SqlDialect,
  inputs: readonly StatInput[],
  lateBefore: string,
): Promise<StatsMerge> {
  if (inputs.length === 0) return DONE;
  const merge = await lockTotals(trx, dialect, totalsOf(inputs));
  // Numbers a daemon may remember changed: their sources' counters say so (closed-blocks.ts). Raised
  // after the rows are locked and before the webhooks' rows, as they always were.
  const late = inputs.filter((input) => input.createdAt < lateBefore);
  if (late.length > 0)
    await raiseEpochs(
      trx,
      late.map((input) => input.sourceId),
    );
  return merge;
}

/** ISO time before which an entry's numbers are late at `now` (closed-blocks.ts `LATE_MS`). */
export const lateBeforeAt = (now: number): string => new Date(now - LATE_MS).toISOString();

async function lockTotals(trx: Executor, dialect: SqlDialect, totals: readonly BucketTotals[]): Promise<StatsMerge> {
  if (dialect.backend === 'sqlite' && dialect.statements) {
    addStatsDirect(dialect, dialect.statements, totals);
    return DONE;
  }
  if (dialect.backend === 'sqlite') {
    for (const { level, holds } of LEVELS)
      for (const part of chunks(totals.filter(holds))) await level.write(trx, part, 'add').execute();
    return DONE;
  }
  const parts: { entry: (typeof LEVELS)[number]; part: BucketTotals[]; read: Rows }[] = [];
  for (const entry of LEVELS)
    for (const part of chunks(totals.filter(entry.holds))) {
      // Each part's missing rows are made just before it is read, minutes before hours and days.
      if (dialect.concurrentWriters)
        await executeWaiting(trx, dialect, shapedLevel(SHAPED, entry).insertEmpty(trx, part));
      parts.push({ entry, part, read: await entry.level.held(trx, dialect, part, SHAPED) });
    }
  return async () => {
    for (const { entry, part, read } of parts) {
      const byKey = new Map(part.map((t) => [keyOf(t), t]));
      const merged = (rows: readonly StoredRow[], of: readonly BucketTotals[]) => {
        const found = new Set<string>();
        for (const row of rows) {
          const key = keyOf(row);
          found.add(key);
          const target = byKey.get(key);
          if (target) addStored(target, row);
        }
        // SQLite has one writer: what is missing is new.
        return dialect.concurrentWriters ? of.filter((t) => !found.has(keyOf(t))) : [];
      };
      let missing = merged(await read.rows(), part);
      // PostgreSQL: a row whose lock was waited for can be gone when the lock comes (a rule's move
      // deletes a row it empties, move-stats.ts); `for update` then skips it, and writing these
      // numbers alone over the row another waiting writer makes would lose that writer's. Such
      // rows are made and locked again, here after the other parts' rows: should that order
      // deadlock with another writer, PostgreSQL fails one of the two, which is run again.
      for (let round = 1; missing.length > 0 && round < 3; round++) {
        if (dialect.concurrentWriters)
          await executeWaiting(trx, dialect, shapedLevel(SHAPED, entry).insertEmpty(trx, missing));
        missing = merged(await entry.level.locked(trx, dialect, missing, true, SHAPED), missing);
      }
    }
    return async () => {
      // Their results are not read: they go with the next statement of the transaction (db/pg-joined.ts).
      for (const { entry, part } of parts)
        await executeWaiting(trx, dialect, shapedLevel(SHAPED, entry).write(trx, part));
    };
  };
}

/** A level's locked read of `part` held on PostgreSQL's connection (`executeHeld`), compiled once a shape. */
async function readHeld<R>(
  trx: Executor,
  dialect: SqlDialect,
  name: string,
  part: readonly Keyed[],
  shaped: ShapedStatements,
  build: (part: readonly Keyed[]) => Compilable<R>,
): Promise<{ rows(): Promise<R[]> }> {
  return executeHeld(
    trx,
    dialect,
    shaped.statement(trx, name, keyValues(part), (at) => build(keyRows(part, at))),
  );
}
