import type { HttpTrafficRecord, TrafficFilters } from '@tapline/shared';
import type { Store } from '../db/open.js';
import { recordOf, recordRows, trafficFilter } from '../http-traffic/repo.js';

/** Where the previous page ended: entries are read oldest first by (createdAt, id). */
export interface HarCursor {
  readonly createdAt: string;
  readonly id: string;
}

/**
 * One page of whole records after `cursor`, oldest first. A keyset cursor, not an offset: each
 * page costs the same however deep the export is, and entries stored meanwhile never shift it.
 */
export async function recordsAfter({ db, dialect }: Store, sourceId: string, filters: TrafficFilters, cursor: HarCursor | null, limit: number): Promise<HttpTrafficRecord[]> {
  const rows = await recordRows({ db, dialect })
    .where((eb) => {
      const matching = trafficFilter(eb, dialect, sourceId, filters);
      if (!cursor) return matching;
      const after = eb.or([eb('t.created_at', '>', cursor.createdAt), eb.and([eb('t.created_at', '=', cursor.createdAt), eb('t.id', '>', cursor.id)])]);
      return eb.and([matching, after]);
    })
    .orderBy('t.created_at', 'asc')
    .orderBy('t.id', 'asc')
    .limit(limit)
    .execute();
  return rows.map(recordOf);
}
