import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contract, type TaplineClient } from '@tapline/shared';
import { composeBody, createSource, type Harness, manualClock, startHarness } from '@tapline/testkit/daemon';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import type { Db } from '../db/open.js';
import { DEFAULT_POLICY } from './options.js';

const DAY = 24 * 3600 * 1000;

/** A record with bodies large enough for sizes to move: about 1.5 KB of JSON. */
const bulky = (sourceId: string, i: number, overrides: Record<string, unknown> = {}) =>
  composeBody(sourceId, {
    pathnameUrl: `/api/orders/${i % 7}`,
    status: [200, 201, 404, 500][i % 4],
    responseBody: { id: i, items: Array.from({ length: 12 }, (_, n) => ({ sku: `SKU-${i}-${n}`, name: `item number ${n} of order ${i}`, price: n * 3.5 })) },
    ...overrides,
  });

async function post(client: TaplineClient, sourceId: string, count: number, from = 0, overrides: Record<string, unknown> = {}): Promise<string[]> {
  const body = Array.from({ length: count }, (_, i) => bulky(sourceId, from + i, overrides));
  return (await client.call(contract.composeBatch, { params: { trafficSourceId: sourceId }, body })).ids;
}

/** The rollup equals a count of the entries, key by key, with no zero rows left behind. */
async function expectRollupExact(db: Db): Promise<void> {
  const counted = await db
    .selectFrom('http_traffic')
    .select(['traffic_source_id', 'pathname_id', 'method', 'status', (eb) => eb.fn.countAll<number>().as('count')])
    .groupBy(['traffic_source_id', 'pathname_id', 'method', 'status'])
    .orderBy('traffic_source_id').orderBy('pathname_id').orderBy('method').orderBy('status')
    .execute();
  const rollup = await db
    .selectFrom('traffic_counts')
    .select(['traffic_source_id', 'pathname_id', 'method', 'status', 'count'])
    .orderBy('traffic_source_id').orderBy('pathname_id').orderBy('method').orderBy('status')
    .execute();
  expect(rollup.map((r) => ({ ...r, count: Number(r.count) }))).toEqual(counted.map((r) => ({ ...r, count: Number(r.count) })));
}

async function ids(client: TaplineClient, sourceId: string): Promise<string[]> {
  const all: string[] = [];
  for (let page = 1; ; page++) {
    const { data } = await client.call(contract.listTraffic, { params: { trafficSourceId: sourceId }, query: { limit: 1000, page } });
    all.push(...data.map((e) => e.id));
    if (data.length < 1000) return all;
  }
}

describe('retention by age', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('removes entries older than --retention with their exchange, core logs and deliveries; keeps the rest and the totals exact', async () => {
    const clock = manualClock('2026-01-01T00:00:00.000Z');
    h = await startHarness({ clock, pruner: { start: false }, config: { allowPrivateWebhooks: true, webhookDelivery: false, retention: { ...DEFAULT_POLICY, maxAgeMs: 30 * DAY } } });
    const { client } = await h.user();
    const source = await createSource(client);
    const params = { trafficSourceId: source.id };
    await client.call(contract.createWebhook, { params, body: { type: 'http', level: 'fatal', value: 'http://127.0.0.1:9/hook' } });

    // Half on a domain that only old entries use, half on the paths the recent ones use too.
    const old = [...(await post(client, source.id, 20, 0, { domainUrl: 'https://old.example.com' })), ...(await post(client, source.id, 20, 0))];
    await client.call(contract.createCoreLog, { params, body: { title: 'old', description: 'd', source: 'api', layer: 'db', stack: 's', httpTrafficId: old[3] } });
    clock.advance(20 * DAY);
    const recent = await post(client, source.id, 30, 100);
    await client.call(contract.createCoreLog, { params, body: { title: 'recent', description: 'd', source: 'api', layer: 'db', stack: 's', httpTrafficId: recent[3] } });
    clock.advance(15 * DAY); // the first 40 are now 35 days old, the others 15

    const oldDeliveries = await h.deps.db.selectFrom('webhook_deliveries').select('id').where('http_traffic_id', 'in', old).execute();
    expect(oldDeliveries.length).toBeGreaterThan(0);
    const removed = await h.pruner.runNow();
    expect(removed).toEqual({ entries: 40, coreLogs: 1, deliveries: oldDeliveries.length, pathnames: 7, domains: 1 });
    expect(new Set(await ids(client, source.id))).toEqual(new Set(recent));
    const list = await client.call(contract.listTraffic, { params, query: { level: 'fatal' } });
    expect(list.meta.total).toBe(recent.filter((_, i) => (100 + i) % 4 === 3).length);
    await expectRollupExact(h.deps.db);
    const logs = await client.call(contract.listCoreLogs, { params });
    expect(logs.data.map((l) => l.title)).toEqual(['recent']);
    const deliveries = await h.deps.db.selectFrom('webhook_deliveries').select('http_traffic_id').where('http_traffic_id', 'is not', null).execute();
    expect(deliveries.length).toBeGreaterThan(0);
    for (const d of deliveries) expect(recent).toContain(d.http_traffic_id);
    const domains = await client.call(contract.listDomains, { params });
    expect(domains.data.map((d) => d.value)).toEqual(['shop.example.com']);

    // A pathname the prune removed is used again at once: the ingest's id cache does not hold it.
    expect(await post(client, source.id, 1, 0, { domainUrl: 'https://old.example.com' })).toHaveLength(1);
    await expectRollupExact(h.deps.db);
    expect(await h.pruner.runNow()).toMatchObject({ entries: 0 });
  });
});

describe('the size budget', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('prunes the oldest entries as soon as ingest crosses --max-db-size; the newest survive, totals stay exact', async () => {
    const clock = manualClock('2026-01-01T00:00:00.000Z');
    const budget = 3 * 2 ** 20;
    h = await startHarness({ clock, config: { retention: { maxAgeMs: null, maxBytes: budget, everyMs: 3_600_000 } } });
    const { client } = await h.user();
    const source = await createSource(client);
    const batches: string[][] = [];
    for (let i = 0; i < 12; i++) {
      batches.push(await post(client, source.id, 200, i * 200));
      clock.advance(60_000);
      await expectRollupExact(h.deps.db);
    }
    await expect.poll(async () => (await h.deps.storage.sizeBytes()) <= budget && (await h.pruner.runNow()).entries === 0, { timeout: 20_000 }).toBe(true);
    const kept = new Set(await ids(client, source.id));
    expect(kept.size).toBeGreaterThan(200);
    expect(kept.size).toBeLessThan(2400);
    for (const id of batches.at(-1) ?? []) expect(kept.has(id)).toBe(true);
    for (const id of batches[0] ?? []) expect(kept.has(id)).toBe(false);
    // Oldest go first: what is kept is a suffix of the ingest order.
    const all = batches.flat();
    const firstKept = all.findIndex((id) => kept.has(id));
    expect(all.slice(firstKept).every((id) => kept.has(id))).toBe(true);
    expect((await client.call(contract.listTraffic, { params: { trafficSourceId: source.id } })).meta.total).toBe(kept.size);
    await expectRollupExact(h.deps.db);
  });
});

describe('the file on disk', () => {
  let h: Harness;
  let dir: string;
  afterEach(async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('does not grow across ingest / prune cycles, and shrinks after each prune', async () => {
    dir = mkdtempSync(join(tmpdir(), 'tapline-retention-'));
    const file = join(dir, 'tapline.db');
    const onDisk = () => statSync(file).size + (statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0);
    const clock = manualClock('2026-01-01T00:00:00.000Z');
    h = await startHarness({ clock, dbFile: file, pruner: { start: false }, config: { retention: { maxAgeMs: DAY, maxBytes: null, everyMs: 3_600_000 } } });
    const { client } = await h.user();
    const source = await createSource(client);
    expect((await sql<{ auto_vacuum: number }>`pragma auto_vacuum`.execute(h.deps.db)).rows[0]?.auto_vacuum).toBe(2);

    const afterPrune: number[] = [];
    for (let cycle = 0; cycle < 3; cycle++) {
      for (let i = 0; i < 5; i++) await post(client, source.id, 200, i * 200);
      const full = onDisk();
      clock.advance(2 * DAY);
      expect((await h.pruner.runNow()).entries).toBe(1000);
      afterPrune.push(onDisk());
      expect(afterPrune.at(-1)).toBeLessThan(full / 3);
      await expectRollupExact(h.deps.db);
    }
    expect(afterPrune[2]).toBeLessThanOrEqual(afterPrune[0] ?? 0);
  });
});
