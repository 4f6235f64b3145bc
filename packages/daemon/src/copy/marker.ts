import { sql } from 'kysely';
import type { Db, Executor } from '../db/open.js';
import { COPIED_TABLES } from './tables.js';

/**
 * While a copy is unfinished, its destination holds one row in a table of its own naming the
 * state of the source it started from. Resuming from a source that has changed since would mix
 * two states (rows already copied are never rewritten), so a resume compares that row with the
 * source first. The table is dropped when the copy completes.
 */
export const MARKER_TABLE = 'tapline_copy_in_progress';

/** Columns whose newest value moves when a row is added or changed (tokens: revoked_at). */
const CHANGE_COLUMNS = ['created_at', 'updated_at', 'revoked_at', 'next_attempt_at', 'started_at'];

/** Per table, its row count and the newest value of each change column it has. */
export async function fingerprint(source: Executor, columns: ReadonlyMap<string, readonly string[]>): Promise<string> {
  const parts: string[] = [];
  for (const { name } of COPIED_TABLES) {
    const present = CHANGE_COLUMNS.filter((column) => columns.get(name)?.includes(column));
    const newest = present.map((column) => sql`max(${sql.ref(column)})`);
    const { rows } = await sql<
      Record<string, unknown>
    >`select ${sql.join([sql`count(*)`, ...newest])} from ${sql.table(name)}`.execute(source);
    parts.push(
      `${name}:${Object.values(rows[0] ?? {})
        .map(String)
        .join(',')}`,
    );
  }
  return parts.join(';');
}

export async function readMarker(to: Db, tables: ReadonlyMap<string, unknown>): Promise<string | null> {
  if (!tables.has(MARKER_TABLE)) return null;
  const { rows } = await sql<{ source: string }>`select source from ${sql.table(MARKER_TABLE)}`.execute(to);
  return rows[0]?.source ?? null;
}

export async function writeMarker(to: Db, source: string): Promise<void> {
  await to.schema
    .createTable(MARKER_TABLE)
    .ifNotExists()
    .addColumn('source', 'text', (c) => c.notNull())
    .execute();
  await sql`insert into ${sql.table(MARKER_TABLE)} (source) values (${source})`.execute(to);
}

export async function dropMarker(to: Db): Promise<void> {
  await to.schema.dropTable(MARKER_TABLE).ifExists().execute();
}
