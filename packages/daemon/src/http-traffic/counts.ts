import type { TrafficFilters } from '@tapline/shared';
import type { Db } from '../db/open.js';
import type { TrafficCountsTable } from '../db/schema.js';
import type { IngestHook } from './bus.js';

/** Keys per upsert: 7 columns each stays far below SQLite's bound-variable limit. */
const KEYS_PER_UPSERT = 500;

/**
 * Keeps `traffic_counts` in step with `http_traffic`: it runs inside every ingest transaction,
 * so the two never disagree. A group adds one row per distinct key, not per record, in one
 * multi-row upsert (building a query per key showed in batch profiles).
 */
export const countTraffic: IngestHook = async (trx, entries) => {
  const keyed = new Map<string, TrafficCountsTable>();
  for (const entry of entries) {
    const key = `${entry.trafficSourceId} ${entry.pathnameId} ${entry.method} ${entry.status}`;
    const found = keyed.get(key);
    if (found) found.count += 1;
    else {
      const { trafficSourceId, pathnameId, domainId, method, status, level } = entry;
      keyed.set(key, { traffic_source_id: trafficSourceId, pathname_id: pathnameId, domain_id: domainId, method, status, level, count: 1 });
    }
  }
  const rows = [...keyed.values()];
  for (let i = 0; i < rows.length; i += KEYS_PER_UPSERT) {
    await trx
      .insertInto('traffic_counts')
      .values(rows.slice(i, i + KEYS_PER_UPSERT))
      .onConflict((oc) =>
        oc.columns(['traffic_source_id', 'pathname_id', 'method', 'status']).doUpdateSet((eb) => ({ count: eb('traffic_counts.count', '+', eb.ref('excluded.count')) })),
      )
      .execute();
  }
};

/** The rollup answers any combination of the filters it has columns for; dates and `q` do not. */
export const rollupAnswers = (filters: TrafficFilters): boolean =>
  !filters.startDate && !filters.endDate && !('q' in filters && filters.q) && !('idPrefix' in filters && filters.idPrefix);

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
