import { type RawBuilder, sql } from 'kysely';
import type { SqlDialect } from '../db/dialect.js';
import type { Db, Executor, Store } from '../db/open.js';
import type { StoredValues } from '../db/stored-values.js';
import { dropMarker, fingerprint, MARKER_TABLE, readMarker, writeMarker } from './marker.js';
import { lastStreamSeq, setLastStreamSeq } from '../stream/stream-repo.js';
import { COPIED_TABLES, type CopiedTable, unknownTables } from './tables.js';
import { ExitError } from '../exit-error.js';

/** A copy that cannot start or go on: the message is for the person at the shell. */
export class CopyError extends ExitError {}

/** What the progress display is told. */
export interface CopyReporter {
  start(totalRows: number): void;
  /** `rows` more rows of `table` were copied (or found already copied by an earlier run). */
  advance(table: string, rows: number): void;
  finish(): void;
}

export interface CopiedCount {
  readonly table: string;
  readonly rows: number;
  /** Rows that an interrupted earlier copy had already written. */
  readonly alreadyThere: number;
}

/** Rows are moved by table name, whatever the table, through raw SQL: plain records. */
type Row = Record<string, unknown>;

const list = (names: readonly string[]) => sql.join(names.map((name) => sql.ref(name)));

async function count(db: Executor, table: string): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)}`.execute(db);
  return Number(rows[0]?.n ?? 0);
}

async function settings(db: Executor): Promise<Map<string, unknown>> {
  const { rows } = await sql<{
    key: string;
    value: unknown;
  }>`select ${sql.ref('key')}, ${sql.ref('value')} from settings`.execute(db);
  return new Map(rows.map((r) => [r.key, r.value]));
}

/**
 * The destination must be empty (a new copy starts: it is marked unfinished), or hold what an
 * interrupted copy of this same, unchanged source left (the copy resumes).
 */
async function startOrResume(
  source: Executor,
  to: Db,
  tables: ReadonlyMap<string, readonly string[]>,
  destinationTables: ReadonlyMap<string, unknown>,
): Promise<void> {
  const state = await fingerprint(source, tables);
  const marker = await readMarker(to, destinationTables);
  if (marker !== null) {
    if (marker !== state)
      throw new CopyError(
        'the source has changed since the interrupted copy began, so it cannot be resumed; copy into an empty database again',
      );
    return;
  }
  const counts = await Promise.all(COPIED_TABLES.map((t) => count(to, t.name)));
  if (counts.every((n) => n === 0)) return writeMarker(to, state);
  const [mine, theirs] = await Promise.all([settings(source), settings(to)]);
  const same =
    mine.size > 0 && mine.size === theirs.size && [...mine].every(([key, value]) => theirs.get(key) === value);
  throw new CopyError(
    same
      ? 'the destination already holds a finished copy of this database; to copy again, copy into an empty one'
      : 'the destination already holds another Tapline database; copy into an empty one (a new SQLite file or an empty PostgreSQL database)',
  );
}

async function tablesOf(db: Db): Promise<Map<string, string[]>> {
  const tables = await db.introspection.getTables();
  return new Map(tables.map((t) => [t.name, t.columns.map((c) => c.name).sort()]));
}

/**
 * One page of `table` in key order, after `after` (the key of the last row copied). Payload
 * columns are read as JSON text when `decode` is given (a destination that does not compress).
 */
function page(
  table: CopiedTable,
  columns: readonly string[],
  decode: SqlDialect | null,
  after: Row | undefined,
  size: number,
  stored: StoredValues,
): RawBuilder<Row> {
  const keys = list(table.key);
  const selected = columns.map((c) =>
    decode && table.payloads?.includes(c) ? sql`${decode.payloadText(sql.ref(c))} as ${sql.ref(c)}` : sql.ref(c),
  );
  const from = sql`select ${sql.join(selected)} from ${sql.table(table.name)}`;
  const order = sql`order by ${keys} limit ${size}`;
  if (!after) return sql<Row>`${from} ${order}`;
  return sql<Row>`${from} where (${keys}) > (${sql.join(table.key.map((k) => stored.encode(k, after[k])))}) ${order}`;
}

/** Bound parameters per statement: under SQLite's 32,766 and PostgreSQL's 65,535. */
const MAX_PARAMETERS = 30_000;

function insert(
  table: string,
  columns: readonly string[],
  rows: readonly Row[],
  stored: StoredValues,
): RawBuilder<unknown> {
  const values = sql.join(rows.map((row) => sql`(${sql.join(columns.map((c) => stored.encode(c, row[c] ?? null)))})`));
  // An interrupted copy may have written some of these rows already: keep those, add the rest.
  return sql`insert into ${sql.table(table)} (${list(columns)}) values ${values} on conflict do nothing`;
}

/** Rows come back from either database with ids as text (db/stored-values.ts); each side binds them in its stored form. */
interface Sides {
  readonly source: Executor;
  readonly to: Executor;
  readonly from: StoredValues;
  readonly into: StoredValues;
}

async function copyTable(
  { source, to, from, into }: Sides,
  table: CopiedTable,
  columns: readonly string[],
  decode: SqlDialect | null,
  options: CopyOptions,
): Promise<CopiedCount> {
  const total = await count(source, table.name);
  const before = await count(to, table.name);
  // Done by an earlier run: the destination only ever receives this source's rows.
  if (before === total) {
    options.report?.advance(table.name, total);
    return { table: table.name, rows: total, alreadyThere: before };
  }
  let after: Row | undefined;
  for (;;) {
    options.signal?.throwIfAborted();
    const { rows } = await page(table, columns, decode, after, options.batchSize, from).execute(source);
    if (rows.length === 0) break;
    const perStatement = Math.max(1, Math.floor(MAX_PARAMETERS / columns.length));
    for (let i = 0; i < rows.length; i += perStatement)
      await insert(table.name, columns, rows.slice(i, i + perStatement), into).execute(to);
    options.report?.advance(table.name, rows.length);
    after = rows[rows.length - 1];
  }
  return { table: table.name, rows: total, alreadyThere: before };
}

export interface CopyOptions {
  /** Rows read and written at once (bodies can be up to the daemon's --max-body each). */
  readonly batchSize: number;
  readonly report?: CopyReporter;
  readonly signal?: AbortSignal;
}

/**
 * Copies every row of every table from one database to another of either dialect, ids and
 * timestamps unchanged. Both are migrated to the same version by the caller. The source is read
 * in one snapshot (a repeatable-read transaction; SQLite's read transaction is one already), so a
 * daemon may keep running on it; what it stores after the copy starts is not copied. Interrupted,
 * it resumes if the source has not changed since (marker.ts): finished tables are skipped, the
 * one in progress is read again and only its missing rows written.
 */
export async function copyDatabase(fromStore: Store, toStore: Store, options: CopyOptions): Promise<CopiedCount[]> {
  const [from, to] = [fromStore.db, toStore.db];
  // Compressed values go as they are to a destination that compresses (with their dictionaries);
  // to any other, as the JSON text they stand for (docs/storage.md, "Compact storage").
  const decode = toStore.dialect.payloads.compresses ? null : fromStore.dialect;
  const [sourceTables, destinationTables] = await Promise.all([tablesOf(from), tablesOf(to)]);
  if (sourceTables.has(MARKER_TABLE))
    throw new CopyError('the source is itself an unfinished copy; finish that copy first');
  const unknown = unknownTables([...sourceTables.keys()]);
  if (unknown.length > 0)
    throw new CopyError(
      `the source has tables this version of taplined does not know (${unknown.join(', ')}); copy with the taplined that wrote it`,
    );
  for (const { name } of COPIED_TABLES) {
    const mine = sourceTables.get(name)?.join(',');
    if (mine === undefined || mine !== destinationTables.get(name)?.join(','))
      throw new CopyError(`the two databases differ in table ${name}; both must be at this version of taplined`);
  }

  return from
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (source) => {
      await startOrResume(source, to, sourceTables, destinationTables);
      const totals = await Promise.all(COPIED_TABLES.map((t) => count(source, t.name)));
      options.report?.start(totals.reduce((a, b) => a + b, 0));
      const copied: CopiedCount[] = [];
      for (const table of COPIED_TABLES) {
        const sides = { source, to, from: fromStore.dialect.stored, into: toStore.dialect.stored };
        copied.push(await copyTable(sides, table, sourceTables.get(table.name) ?? [], decode, options));
        // Dictionaries arrive by SQL: the destination's codec reads them before any value needs one.
        if (table.name === 'payload_dictionaries') await toStore.dialect.payloads.load(to);
      }
      // The stream numbers were copied with their entries; new ones continue after the source's last.
      await setLastStreamSeq(to, await lastStreamSeq(source));
      await dropMarker(to);
      options.report?.finish();
      return copied;
    });
}
