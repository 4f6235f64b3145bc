/** For tests of how much is stored and removed: records big enough for sizes to move, and the rollup's exactness. */
import { createHash } from 'node:crypto';
import { contract, type TaplineClient } from '@tapline/shared';
import type { Db } from '@tapline/daemon';
import { expect } from 'vitest';
import { composeBody } from '../compose.js';

export const DAY = 24 * 3600 * 1000;

/**
 * A record with bodies large enough for sizes to move: about 2.3 KB of JSON, with a digest per
 * item standing in for the ids and tokens of real bodies, so that it stays large compressed too.
 */
export const bulkyRecord = (sourceId: string, i: number, overrides: Record<string, unknown> = {}) =>
  composeBody(sourceId, {
    pathnameUrl: `/api/orders/${i % 7}`,
    status: [200, 201, 404, 500][i % 4],
    responseBody: {
      id: i,
      items: Array.from({ length: 12 }, (_, n) => ({
        sku: `SKU-${i}-${n}`,
        name: `item number ${n} of order ${i}`,
        price: n * 3.5,
        digest: createHash('sha256').update(`${i}:${n}`).digest('hex'),
      })),
    },
    ...overrides,
  });

export async function postRecords(
  client: TaplineClient,
  sourceId: string,
  count: number,
  from = 0,
  overrides: Record<string, unknown> = {},
): Promise<string[]> {
  const body = Array.from({ length: count }, (_, i) => bulkyRecord(sourceId, from + i, overrides));
  return (await client.call(contract.composeBatch, { params: { trafficSourceId: sourceId }, body })).ids;
}

/** The rollup equals a count of the entries, key by key, with no zero rows left behind. */
export async function expectRollupExact(db: Db): Promise<void> {
  const counted = await db
    .selectFrom('http_traffic')
    .select(['traffic_source_id', 'pathname_id', 'method', 'status', (eb) => eb.fn.countAll<number>().as('count')])
    .groupBy(['traffic_source_id', 'pathname_id', 'method', 'status'])
    .orderBy('traffic_source_id')
    .orderBy('pathname_id')
    .orderBy('method')
    .orderBy('status')
    .execute();
  const rollup = await db
    .selectFrom('traffic_counts')
    .select(['traffic_source_id', 'pathname_id', 'method', 'status', 'count'])
    .orderBy('traffic_source_id')
    .orderBy('pathname_id')
    .orderBy('method')
    .orderBy('status')
    .execute();
  expect(rollup.map((r) => ({ ...r, count: Number(r.count) }))).toEqual(
    counted.map((r) => ({ ...r, count: Number(r.count) })),
  );
}

export async function allEntryIds(client: TaplineClient, sourceId: string): Promise<string[]> {
  const all: string[] = [];
  for (let page = 1; ; page++) {
    const { data } = await client.call(contract.listTraffic, {
      params: { trafficSourceId: sourceId },
      query: { limit: 1000, page },
    });
    all.push(...data.map((e) => e.id));
    if (data.length < 1000) return all;
  }
}
