import type { TrafficFilters } from '@tapline/shared';
import type { Db } from '../db/open.js';
import type { IngestHook } from './bus.js';

/**
 * Keeps `traffic_counts` in step with `http_traffic`: it runs inside every ingest transaction,
 * so the two never disagree. A batch adds one row per distinct key, not per record.
 */
export const countTraffic: IngestHook = async (trx, entries) => {
  const keyed = new Map<string, { entry: (typeof entries)[number]; n: number }>();
  for (const entry of entries) {
    const key = `${entry.trafficSourceId} ${entry.pathnameId} ${entry.method} ${entry.status}`;
    const found = keyed.get(key);
    if (found) found.n += 1;
    else keyed.set(key, { entry, n: 1 });
  }
  for (const { entry, n } of keyed.values()) {
    await trx
      .insertInto('traffic_counts')
      .values({
        traffic_source_id: entry.trafficSourceId,
        pathname_id: entry.pathnameId,
        domain_id: entry.domainId,
        method: entry.method,
        status: entry.status,
        level: entry.level,
        count: n,
      })
      .onConflict((oc) => oc.columns(['traffic_source_id', 'pathname_id', 'method', 'status']).doUpdateSet((eb) => ({ count: eb('traffic_counts.count', '+', n) })))
      .execute();
  }
};

/** The rollup answers any combination of the filters it has columns for; dates and `q` do not. */
export const rollupAnswers = (filters: TrafficFilters): boolean =>
  !filters.startDate && !filters.endDate && !('q' in filters && filters.q);

/** `meta.total` from the rollup: the same filters as trafficFilter, over the counted keys. */
export async function countFromRollup(db: Db, sourceId: string, filters: TrafficFilters): Promise<number> {
  let query = db.selectFrom('traffic_counts').select((eb) => eb.fn.sum<number | null>('count').as('total')).where('traffic_source_id', '=', sourceId);
  if (filters.domainId) query = query.where('domain_id', '=', filters.domainId);
  if (filters.pathnameId) query = query.where('pathname_id', '=', filters.pathnameId);
  if (filters.method) query = query.where('method', '=', filters.method);
  if (filters.level) query = query.where('level', '=', filters.level);
  if (filters.status) query = query.where('status', '>=', filters.status.min).where('status', '<=', filters.status.max);
  const row = await query.executeTakeFirstOrThrow();
  return Number(row.total ?? 0);
}
