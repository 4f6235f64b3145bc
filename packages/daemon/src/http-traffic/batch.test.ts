import { ApiError, contract, type TaplineClient } from '@tapline/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { composeBody, type Harness, startHarness } from '../testing/harness.js';

const OTHER_ID = '01a1fc8d-93a2-767e-92f3-e5a71388f88b';

async function setup(options: Parameters<typeof startHarness>[0] = {}) {
  const h = await startHarness(options);
  const owner = await h.user();
  const source = await owner.client.call(contract.createTrafficSource, { body: { name: 'shop', trafficDomain: 'shop.example.com' } });
  return { h, owner, source };
}

async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

const total = async (client: TaplineClient, trafficSourceId: string) =>
  (await client.call(contract.listTraffic, { params: { trafficSourceId } })).meta.total;

describe('POST /http-traffic-record/:trafficSourceId/batch', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('stores every item and answers the ids in input order', async () => {
    const ctx = await setup();
    h = ctx.h;
    const body = Array.from({ length: 25 }, (_, i) => composeBody(ctx.source.id, { pathnameUrl: `/items/${i}`, status: 200 + i }));
    const { ids } = await ctx.owner.client.call(contract.composeBatch, { params: { trafficSourceId: ctx.source.id }, body });
    expect(ids).toHaveLength(25);
    expect(new Set(ids).size).toBe(25);
    for (const [i, id] of ids.entries()) {
      const record = await ctx.owner.client.call(contract.getTraffic, { params: { trafficSourceId: ctx.source.id, id } });
      expect(record).toMatchObject({ pathname: `/items/${i}`, status: 200 + i });
    }
    expect(await total(ctx.owner.client, ctx.source.id)).toBe(25);
  });

  it('redacts secrets in every item, as single composes do', async () => {
    const ctx = await setup();
    h = ctx.h;
    const body = [composeBody(ctx.source.id), composeBody(ctx.source.id, { requestHeaders: { cookie: 'sid=1' }, requestBody: { password: 'p' } })];
    const { ids } = await ctx.owner.client.call(contract.composeBatch, { params: { trafficSourceId: ctx.source.id }, body });
    const record = await ctx.owner.client.call(contract.getTraffic, { params: { trafficSourceId: ctx.source.id, id: ids[1] ?? '' } });
    expect(record.request).toMatchObject({ headers: { cookie: '[REDACTED]' }, body: { password: '[REDACTED]' } });
  });

  it('names each invalid item by index and stores nothing of the batch', async () => {
    const ctx = await setup();
    h = ctx.h;
    const body = [
      composeBody(ctx.source.id),
      composeBody(ctx.source.id, { method: 'HEAD' }),
      composeBody(ctx.source.id),
      composeBody(ctx.source.id, { status: 42, domainUrl: 'not a url' }),
    ];
    const error = await rejection(ctx.owner.client.call(contract.composeBatch, { params: { trafficSourceId: ctx.source.id }, body }));
    expect(error.status).toBe(400);
    const paths = error.body.issues?.map((issue) => issue.path) ?? [];
    expect(paths).toEqual(expect.arrayContaining(['1.method', '3.status', '3.domainUrl']));
    expect(paths.every((path) => /^[13]\./.test(path))).toBe(true);
    expect(error.body.error).toMatch(/^1\.method/);
    expect(await total(ctx.owner.client, ctx.source.id)).toBe(0);
  });

  it('rejects items whose trafficSourceId differs from the path, by index', async () => {
    const ctx = await setup();
    h = ctx.h;
    const body = [composeBody(ctx.source.id), composeBody(OTHER_ID), composeBody(ctx.source.id)];
    const error = await rejection(ctx.owner.client.call(contract.composeBatch, { params: { trafficSourceId: ctx.source.id }, body }));
    expect(error.status).toBe(400);
    expect(error.body.issues).toEqual([{ path: '1.trafficSourceId', message: 'must equal the trafficSourceId in the path' }]);
    expect(await total(ctx.owner.client, ctx.source.id)).toBe(0);
  });

  it('is atomic: a failure inside the transaction leaves nothing stored', async () => {
    let fail = true;
    const ctx = await setup({
      ingestHooks: [
        async () => {
          if (fail) throw new Error('simulated failure after the inserts');
        },
      ],
    });
    h = ctx.h;
    const body = Array.from({ length: 10 }, () => composeBody(ctx.source.id));
    const error = await rejection(ctx.owner.client.call(contract.composeBatch, { params: { trafficSourceId: ctx.source.id }, body }));
    expect(error.status).toBe(500);
    expect(await total(ctx.owner.client, ctx.source.id)).toBe(0);
    fail = false;
    await ctx.owner.client.call(contract.composeBatch, { params: { trafficSourceId: ctx.source.id }, body });
    expect(await total(ctx.owner.client, ctx.source.id)).toBe(10);
  });

  it('takes 1 to 1,000 items, and only an array', async () => {
    const ctx = await setup();
    h = ctx.h;
    const call = (body: unknown) =>
      ctx.h.fetch(`/http-traffic-record/${ctx.source.id}/batch`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ctx.owner.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await call([])).status).toBe(400);
    expect((await call(composeBody(ctx.source.id))).status).toBe(400);
    const tooMany = await call(Array.from({ length: 1001 }, () => composeBody(ctx.source.id)));
    expect(tooMany.status).toBe(400);
    expect(await tooMany.json()).toMatchObject({ error: expect.stringMatching(/at most 1000/) });
    // Over the ordinary 1 MiB limit, under the batch's 16 MiB.
    const big = Array.from({ length: 1000 }, (_, i) => composeBody(ctx.source.id, { responseBody: { i, text: 'x'.repeat(2000) } }));
    const created = await call(big);
    expect(created.status).toBe(201);
    expect(((await created.json()) as { ids: string[] }).ids).toHaveLength(1000);
    expect(await total(ctx.owner.client, ctx.source.id)).toBe(1000);
  });

  it('answers 413 past 16 MiB', async () => {
    const ctx = await setup();
    h = ctx.h;
    const body = Array.from({ length: 17 }, () => composeBody(ctx.source.id, { responseBody: 'y'.repeat(1024 * 1024) }));
    const error = await rejection(ctx.owner.client.call(contract.composeBatch, { params: { trafficSourceId: ctx.source.id }, body }));
    expect(error.status).toBe(413);
  });

  it('checks existence (404) before ownership and scope (403); ingest tokens may post', async () => {
    const ctx = await setup();
    h = ctx.h;
    const stranger = await ctx.h.user();
    const readOnly = await ctx.h.token(ctx.owner.id, { scope: 'read' });
    const ingest = await ctx.h.token(ctx.owner.id, { scope: 'ingest' });
    const post = (client: TaplineClient, trafficSourceId: string) =>
      client.call(contract.composeBatch, { params: { trafficSourceId }, body: [composeBody(trafficSourceId)] });
    expect((await rejection(post(ctx.owner.client, OTHER_ID))).status).toBe(404);
    expect((await rejection(post(stranger.client, ctx.source.id))).status).toBe(403);
    expect((await rejection(post(readOnly, ctx.source.id))).status).toBe(403);
    expect((await post(ingest, ctx.source.id)).ids).toHaveLength(1);
  });
});
