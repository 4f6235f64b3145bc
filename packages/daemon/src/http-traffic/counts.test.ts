import { contract, type TaplineClient } from '@tapline/shared';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeBody, type Harness, startHarness } from '@tapline/testkit/daemon';

/**
 * meta.total comes from the traffic_counts rollup when no date or expression filter is given;
 * it must always equal what the exact count over http_traffic says.
 */
describe('traffic counts rollup', () => {
  let h: Harness;
  let client: TaplineClient;
  let sourceId: string;
  const STATUSES = [200, 201, 302, 400, 404, 500, 503];
  const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'];
  const PATHS = ['/a', '/b', '/c'];
  const DOMAINS = ['https://one.example.com', 'https://two.example.com:8443'];

  beforeAll(async () => {
    h = await startHarness();
    ({ client } = await h.user());
    sourceId = (
      await client.call(contract.createTrafficSource, { body: { name: 'counts', trafficDomain: 'one.example.com' } })
    ).id;
    const body = (i: number) =>
      composeBody(sourceId, {
        status: STATUSES[i % STATUSES.length],
        method: METHODS[(i * 3) % METHODS.length],
        pathnameUrl: PATHS[(i * 7) % PATHS.length],
        domainUrl: DOMAINS[i % DOMAINS.length],
      });
    // Half one by one, half in one batch (repeated keys counted in one upsert), and a few at
    // once so that group commit puts several requests in one transaction.
    for (let i = 0; i < 50; i++)
      await client.call(contract.composeRecord, { params: { trafficSourceId: sourceId }, body: body(i) });
    await Promise.all(
      Array.from({ length: 10 }, (_, k) =>
        client.call(contract.composeRecord, { params: { trafficSourceId: sourceId }, body: body(50 + k) }),
      ),
    );
    await client.call(contract.composeBatch, {
      params: { trafficSourceId: sourceId },
      body: Array.from({ length: 60 }, (_, k) => body(60 + k)),
    });
  });
  afterAll(() => h.close());

  it('gives the same total as the exact count for any combination of filters', async () => {
    const domains = await client.call(contract.listDomains, { params: { trafficSourceId: sourceId } });
    const pathnames = await client.call(contract.listPathnames, {
      params: { trafficSourceId: sourceId },
      query: { limit: 100 },
    });
    // A date bound far in the past forces the exact count over http_traffic; compare the two.
    const exact = { startDate: '2000-01-01T00:00:00.000Z' };
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          {
            status: fc.constantFrom('200', '404', '503', '2xx', '4xx', '5xx', '3xx', '1xx'),
            method: fc.constantFrom(...METHODS),
            level: fc.constantFrom('INFO', 'WARNING', 'FATAL'),
            domainId: fc.constantFrom(...domains.data.map((d) => d.id)),
            pathnameId: fc.constantFrom(...pathnames.data.map((p) => p.id)),
          },
          { requiredKeys: [] },
        ),
        async (filters) => {
          const params = { trafficSourceId: sourceId };
          const fast = await client.call(contract.listTraffic, { params, query: filters });
          const slow = await client.call(contract.listTraffic, { params, query: { ...filters, ...exact } });
          expect(fast.meta.total).toBe(slow.meta.total);
          expect(fast.data.map((e) => e.id)).toEqual(slow.data.map((e) => e.id));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('counts all 120 entries with no filter', async () => {
    const all = await client.call(contract.listTraffic, { params: { trafficSourceId: sourceId } });
    expect(all.meta.total).toBe(120);
  });

  it('counts a batch with more distinct keys than one upsert takes', async () => {
    const id = (
      await client.call(contract.createTrafficSource, { body: { name: 'wide', trafficDomain: 'wide.example.com' } })
    ).id;
    const batch = Array.from({ length: 1000 }, (_, i) =>
      composeBody(id, { pathnameUrl: `/p/${i % 700}`, status: i < 700 ? 200 : 503 }),
    );
    await client.call(contract.composeBatch, { params: { trafficSourceId: id }, body: batch });
    const rows = await h.deps.db
      .selectFrom('traffic_counts')
      .select(['pathname_id', 'count'])
      .where('traffic_source_id', '=', id)
      .execute();
    expect(rows).toHaveLength(1000);
    const total = await client.call(contract.listTraffic, { params: { trafficSourceId: id } });
    expect(total.meta.total).toBe(1000);
    const fatal = await client.call(contract.listTraffic, {
      params: { trafficSourceId: id },
      query: { level: 'FATAL' },
    });
    expect(fatal.meta.total).toBe(300);
  });

  it('forgets the counts of a deleted source', async () => {
    const other = (
      await client.call(contract.createTrafficSource, { body: { name: 'gone', trafficDomain: 'gone.example.com' } })
    ).id;
    await client.call(contract.composeRecord, { params: { trafficSourceId: other }, body: composeBody(other) });
    await client.call(contract.deleteTrafficSource, { params: { trafficSourceId: other } });
    const left = await h.deps.db
      .selectFrom('traffic_counts')
      .select('traffic_source_id')
      .where('traffic_source_id', '=', other)
      .execute();
    expect(left).toEqual([]);
  });
});
