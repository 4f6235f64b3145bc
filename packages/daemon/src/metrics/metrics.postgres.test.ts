import { contract } from '@tapline/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { promSample, promSeries } from '@tapline/testkit';
import {
  composeBody,
  createSource,
  type FreshDatabase,
  freshDatabase,
  type Harness,
  raw,
  rawJson,
  startHarness,
} from '@tapline/testkit/daemon';

/** The request counter of `/users/{id}`, 2xx, of `sourceId` in a daemon's answer. */
async function usersCount(h: Harness, token: string, sourceId: string): Promise<number> {
  const answer = await raw(h, 'GET', '/metrics', { token });
  return (
    promSample(
      answer.text,
      promSeries(
        'tapline_http_requests_total',
        `source="${sourceId}",domain="shop.example.com",route="/users/{id}",method="GET",status_class="2xx"`,
      ),
    ) ?? 0
  );
}

/**
 * Two daemons on one database (decisions.md §22.1): each counts what it committed, so their
 * counters add up to the stored numbers, which `GET /stats` merges from both.
 */
describe('GET /metrics of two daemons on one database', () => {
  let fresh: FreshDatabase;
  let a: Harness;
  let b: Harness;
  beforeEach(async () => {
    fresh = await freshDatabase({ migrated: true });
    a = await startHarness({ database: fresh.locator, pruner: { start: false }, routeBackfill: { start: false } });
    b = await startHarness({ database: fresh.locator, pruner: { start: false }, routeBackfill: { start: false } });
  });
  afterEach(async () => {
    await a.close();
    await b.close();
    await fresh.drop();
  });

  it("each counts its own commits; together they are GET /stats' count", async () => {
    const user = await a.user();
    const sourceId = (await createSource(user.client)).id;
    const send = (h: Harness, n: number) =>
      rawJson(
        h,
        'POST',
        `/http-traffic-record/${sourceId}/batch`,
        user.token,
        Array.from({ length: n }, (_, i) => composeBody(sourceId, { pathnameUrl: `/users/${i}` })),
      );
    expect((await send(a, 3)).status).toBe(201);
    expect((await send(b, 5)).status).toBe(201);
    const [fromA, fromB] = [await usersCount(a, user.token, sourceId), await usersCount(b, user.token, sourceId)];
    expect([fromA, fromB]).toEqual([3, 5]);
    const stats = await user.client.call(contract.getStats, {
      params: { trafficSourceId: sourceId },
      query: { by: 'route' },
    });
    expect(stats.data.find((g) => g.route === '/users/{id}')?.count).toBe(fromA + fromB);
  });
});
