import type { HttpTrafficRecord, TrafficFilters } from '@tapline/shared';
import { sql, type SqlBool } from 'kysely';
import type { SqlDialect } from '../db/dialect.js';
import type { Store } from '../db/open.js';
import { recordOf, recordRows, trafficFilter } from '../http-traffic/repo.js';

/** Where the previous page ended: entries are read oldest first by (createdAt, id). */
export interface HarCursor {
  readonly createdAt: string;
  readonly id: string;
}

/**
 * Entries past `cursor` in (createdAt, id) order, as a row value: both databases seek the
 * (source, created_at, id) index to it. Spelled as `created_at > ? or (created_at = ? and id > ?)`,
 * SQLite walked the source's index from its start on every page, so a whole read grew with the
 * square of the entries (100,000 entries: 500 pages, each re-reading the ones before). The id is
 * encoded by hand: the stored-values plugin does not look into raw SQL.
 */
export const after = (dialect: SqlDialect, cursor: HarCursor) =>
  sql<SqlBool>`(${sql.ref('t.created_at')}, ${sql.ref('t.id')}) > (${cursor.createdAt}, ${dialect.stored.encode('id', cursor.id)})`;

/**
 * One page of whole records after `cursor`, oldest first. A keyset cursor, not an offset: each
 * page costs the same however deep the export is, and entries stored meanwhile never shift it.
 */
export async function recordsAfter(
  { db, dialect }: Store,
  sourceId: string,
  filters: TrafficFilters,
  cursor: HarCursor | null,
  limit: number,
): Promise<HttpTrafficRecord[]> {
  const rows = await recordRows({ db, dialect })
    .where((eb) => {
      const matching = trafficFilter(eb, dialect, sourceId, filters);
      return cursor ? eb.and([matching, after(dialect, cursor)]) : matching;
    })
    .orderBy('t.created_at', 'asc')
    .orderBy('t.id', 'asc')
    .limit(limit)
    .execute();
  return rows.map(recordOf);
}
