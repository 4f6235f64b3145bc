import { contract, type TrafficFilters } from '@tapline/shared';
import { realisticRecord } from '@tapline/testkit';
import { createSource, type Harness, startHarness } from '@tapline/testkit/daemon';
import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { entries, trafficFilter } from './repo.js';

// SQLite only: the plans that justify the indexes compact storage dropped (docs/storage.md,
// "Compact storage"; docs/decisions.md §19.5). Level, status and method filters walk the
// newest-first index, which carries their columns; names and dates keep indexes of their own.
let h: Harness;
let sourceId: string;
let ids: { domainId: string; pathnameId: string };
beforeAll(async () => {
  h = await startHarness();
  const { client } = await h.user();
  sourceId = (await createSource(client)).id;
  await client.call(contract.composeBatch, {
    params: { trafficSourceId: sourceId },
    body: Array.from({ length: 300 }, (_, i) => realisticRecord(i + 1, sourceId)),
  });
  const first = (await client.call(contract.listTraffic, { params: { trafficSourceId: sourceId } })).data[0];
  ids = { domainId: first?.domainId ?? '', pathnameId: first?.pathnameId ?? '' };
  await sql`analyze`.execute(h.deps.db);
});
afterAll(() => h.close());

/** The plan of the list's first page for `filters`, as SQLite states it. */
async function planOf(filters: TrafficFilters): Promise<string> {
  const { db, dialect } = h.deps;
  const query = entries(db)
    .where((eb) => trafficFilter(eb, dialect, sourceId, filters))
    .orderBy('t.created_at', 'desc')
    .orderBy('t.id', 'desc')
    .limit(50)
    .compile();
  const plan = await db.executeQuery<{ detail: string }>(
    CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]),
  );
  return plan.rows.map((r) => r.detail).join('\n');
}

it.each<[string, () => TrafficFilters, RegExp]>([
  ['level', () => ({ level: 'FATAL' }), /SEARCH t USING INDEX http_traffic_source_created \(traffic_source_id=\?\)/],
  [
    'status',
    () => ({ status: { min: 503, max: 503 } }),
    /SEARCH t USING INDEX http_traffic_source_created \(traffic_source_id=\?\)/,
  ],
  [
    'status class',
    () => ({ status: { min: 500, max: 599 } }),
    /SEARCH t USING INDEX http_traffic_source_created \(traffic_source_id=\?\)/,
  ],
  [
    'method and level',
    () => ({ method: 'DELETE', level: 'WARNING' }),
    /SEARCH t USING INDEX http_traffic_source_created \(traffic_source_id=\?\)/,
  ],
  ['domainId', () => ({ domainId: ids.domainId }), /SEARCH t USING INDEX http_traffic_domain_created \(domain_id=\?\)/],
  [
    'pathnameId',
    () => ({ pathnameId: ids.pathnameId }),
    /SEARCH t USING INDEX http_traffic_pathname_created \(pathname_id=\?\)/,
  ],
  [
    'dates',
    () => ({ startDate: '2026-01-01T00:00:00.000Z', endDate: '2026-12-31T00:00:00.000Z' }),
    /SEARCH t USING INDEX http_traffic_source_created \(traffic_source_id=\? AND created_at>\? AND created_at<\?\)/,
  ],
])('a %s filter reads an index in newest-first order, never sorting', async (_, filters, expected) => {
  const plan = await planOf(filters());
  expect(plan).toMatch(expected);
  expect(plan).not.toContain('TEMP B-TREE');
});
