import { contract } from '@tapline/shared';
import {
  createSource,
  DAY,
  expectRollupExact,
  type Harness,
  allEntryIds,
  manualClock,
  postRecords,
  startHarness,
} from '@tapline/testkit/daemon';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_POLICY } from './options.js';

describe('retention by age', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('removes entries older than --retention with their exchange, core logs and deliveries; keeps the rest and the totals exact', async () => {
    const clock = manualClock('2026-01-01T00:00:00.000Z');
    h = await startHarness({
      clock,
      pruner: { start: false },
      config: {
        allowPrivateWebhooks: true,
        webhookDelivery: false,
        retention: { ...DEFAULT_POLICY, maxAgeMs: 30 * DAY },
      },
    });
    const { client } = await h.user();
    const source = await createSource(client);
    const params = { trafficSourceId: source.id };
    await client.call(contract.createWebhook, {
      params,
      body: { type: 'http', level: 'fatal', value: 'http://127.0.0.1:9/hook' },
    });

    // Half on a domain that only old entries use, half on the paths the recent ones use too.
    const old = [
      ...(await postRecords(client, source.id, 20, 0, { domainUrl: 'https://old.example.com' })),
      ...(await postRecords(client, source.id, 20, 0)),
    ];
    await client.call(contract.createCoreLog, {
      params,
      body: { title: 'old', description: 'd', source: 'api', layer: 'db', stack: 's', httpTrafficId: old[3] },
    });
    clock.advance(20 * DAY);
    const recent = await postRecords(client, source.id, 30, 100);
    await client.call(contract.createCoreLog, {
      params,
      body: { title: 'recent', description: 'd', source: 'api', layer: 'db', stack: 's', httpTrafficId: recent[3] },
    });
    clock.advance(15 * DAY); // the first 40 are now 35 days old, the others 15

    const oldDeliveries = await h.deps.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('http_traffic_id', 'in', old)
      .execute();
    expect(oldDeliveries.length).toBeGreaterThan(0);
    const removed = await h.pruner.runNow();
    expect(removed).toEqual({ entries: 40, coreLogs: 1, deliveries: oldDeliveries.length, pathnames: 7, domains: 1 });
    expect(new Set(await allEntryIds(client, source.id))).toEqual(new Set(recent));
    const list = await client.call(contract.listTraffic, { params, query: { level: 'fatal' } });
    expect(list.meta.total).toBe(recent.filter((_, i) => (100 + i) % 4 === 3).length);
    await expectRollupExact(h.deps.db);
    const logs = await client.call(contract.listCoreLogs, { params });
    expect(logs.data.map((l) => l.title)).toEqual(['recent']);
    const deliveries = await h.deps.db
      .selectFrom('webhook_deliveries')
      .select('http_traffic_id')
      .where('http_traffic_id', 'is not', null)
      .execute();
    expect(deliveries.length).toBeGreaterThan(0);
    for (const d of deliveries) expect(recent).toContain(d.http_traffic_id);
    const domains = await client.call(contract.listDomains, { params });
    expect(domains.data.map((d) => d.value)).toEqual(['shop.example.com']);

    // A pathname the prune removed is used again at once: the ingest's id cache does not hold it.
    expect(await postRecords(client, source.id, 1, 0, { domainUrl: 'https://old.example.com' })).toHaveLength(1);
    await expectRollupExact(h.deps.db);
    expect(await h.pruner.runNow()).toMatchObject({ entries: 0 });
  });
});
