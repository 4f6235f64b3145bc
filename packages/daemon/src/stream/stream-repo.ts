import type { HttpTraffic, TrafficFilters } from '@tapline/shared';
import type { Db, Executor, Store } from '../db/open.js';
import { entries, toEntry, trafficFilter } from '../http-traffic/repo.js';

/**
 * The stream's reads. The stream follows `stream_seq`, the commit order (docs/decisions.md §9.7),
 * never the id order, which several daemons do not commit in; the wire's cursor is still the
 * entry's id, turned into its number here.
 */

/** An entry with its place in the stream. */
export interface Sequenced {
  readonly entry: HttpTraffic;
  readonly seq: number;
}

export interface StreamPoint {
  readonly id: string;
  readonly seq: number;
}

const sequenced = (row: Parameters<typeof toEntry>[0] & { stream_seq: number | string }): Sequenced => ({
  entry: toEntry(row),
  seq: Number(row.stream_seq),
});

/** The source's newest entry, where a stream without a cursor starts. */
export async function newestStreamPoint(db: Db, sourceId: string): Promise<StreamPoint | undefined> {
  const row = await db
    .selectFrom('http_traffic')
    .select(['id', 'stream_seq'])
    .where('traffic_source_id', '=', sourceId)
    .orderBy('stream_seq', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row && { id: row.id, seq: Number(row.stream_seq) };
}

/**
 * The number of a cursor. A cursor that names no entry of the source (one taken before its entry
 * was deleted, or made up) stands for the newest entry whose id is not greater, as the id order
 * that cursors followed before §9.7 would have it; none at all is the very beginning.
 */
export async function streamPointOf(db: Db, sourceId: string, cursor: string): Promise<number> {
  const exact = await db
    .selectFrom('http_traffic')
    .select('stream_seq')
    .where('id', '=', cursor)
    .where('traffic_source_id', '=', sourceId)
    .executeTakeFirst();
  if (exact) return Number(exact.stream_seq);
  const before = await db
    .selectFrom('http_traffic')
    .select('stream_seq')
    .where('traffic_source_id', '=', sourceId)
    .where('id', '<', cursor)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return before ? Number(before.stream_seq) : 0;
}

/** Stored matches after a point of the stream, in stream order. */
export async function trafficAfter(
  { db, dialect }: Store,
  sourceId: string,
  filters: TrafficFilters,
  afterSeq: number,
  limit: number,
): Promise<Sequenced[]> {
  const rows = await entries(db)
    .select('t.stream_seq')
    .where((eb) => eb.and([trafficFilter(eb, dialect, sourceId, filters), eb('t.stream_seq', '>', afterSeq)]))
    .orderBy('t.stream_seq', 'asc')
    .limit(limit)
    .execute();
  return rows.map(sequenced);
}

/** Every source's entries after a point, for the hub that follows the table (several daemons). */
export async function streamSince(
  db: Db,
  sourceIds: readonly string[],
  afterSeq: number,
  limit: number,
): Promise<Sequenced[]> {
  if (sourceIds.length === 0) return [];
  const rows = await entries(db)
    .select('t.stream_seq')
    .where('t.traffic_source_id', 'in', sourceIds)
    .where('t.stream_seq', '>', afterSeq)
    .orderBy('t.stream_seq', 'asc')
    .limit(limit)
    .execute();
  return rows.map(sequenced);
}

/** The last number handed out: where a hub that follows the table starts. */
export async function lastStreamSeq(db: Executor): Promise<number> {
  const row = await db.selectFrom('stream_sequence').select('value').where('name', '=', 'traffic').executeTakeFirst();
  return Number(row?.value ?? 0);
}

/** `taplined copy`: the destination goes on numbering where the source stopped. */
export async function setLastStreamSeq(db: Executor, value: number): Promise<void> {
  await db.updateTable('stream_sequence').set({ value }).where('name', '=', 'traffic').execute();
}

/** Header and body conditions for live entries: one query per batch, off the ingest path. */
export async function matchingTrafficIds(
  { db, dialect }: Store,
  sourceId: string,
  filters: TrafficFilters,
  ids: readonly string[],
): Promise<Set<string>> {
  const rows = await db
    .selectFrom('http_traffic as t')
    .select('t.id')
    .where((eb) => eb.and([trafficFilter(eb, dialect, sourceId, filters), eb('t.id', 'in', ids)]))
    .execute();
  return new Set(rows.map((r) => r.id));
}
