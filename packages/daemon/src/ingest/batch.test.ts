import { gzipSync } from 'node:zlib';
import { ApiError, contract, type TaplineClient } from '@tapline/shared';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BatchWorker } from './prepare-pool.js';
import { buildBatchWorker, composeBody, type Harness, startHarness } from '@tapline/testkit/daemon';

const OTHER_ID = '01a1fc8d-93a2-767e-92f3-e5a71388f88b';

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

// Every test runs twice: batches prepared on the event loop, and in a worker thread (every body
// sent to it), since the daemon uses both (small batches stay on the event loop).
let worker: (BatchWorker & { remove(): void }) | undefined;
beforeAll(async () => {
  worker = await buildBatchWorker();
}, 60_000);
afterAll(() => worker?.remove());

describe.each(['event loop', 'worker thread'])(
  'POST /http-traffic-record/:trafficSourceId/batch, prepared on the %s',
  (where) => {
    async function setup(options: Parameters<typeof startHarness>[0] = {}) {
      const h = await startHarness({
        ...options,
        ...(where === 'worker thread' ? { batchWorker: worker ?? null } : {}),
      });
      const owner = await h.user();
      const source = await owner.client.call(contract.createTrafficSource, {
        body: { name: 'shop', trafficDomain: 'shop.example.com' },
      });
      return { h, owner, source };
    }

    let h: Harness | undefined;
    // Every test but the 413 one has its batches prepared where this block says.
    let prepared = true;
    afterEach(async () => {
      if (prepared && where === 'worker thread') expect(h?.batches.offloaded).toBeGreaterThan(0);
      if (where === 'event loop') expect(h?.batches.offloaded).toBe(0);
      prepared = true;
      await h?.close();
      h = undefined;
    });

    it('stores every item and answers the ids in input order', async () => {
      const ctx = await setup();
      h = ctx.h;
      const body = Array.from({ length: 25 }, (_, i) =>
        composeBody(ctx.source.id, { pathnameUrl: `/items/${i}`, status: 200 + i }),
      );
      const { ids } = await ctx.owner.client.call(contract.composeBatch, {
        params: { trafficSourceId: ctx.source.id },
        body,
      });
      expect(ids).toHaveLength(25);
      expect(new Set(ids).size).toBe(25);
      for (const [i, id] of ids.entries()) {
        const record = await ctx.owner.client.call(contract.getTraffic, {
          params: { trafficSourceId: ctx.source.id, id },
        });
        expect(record).toMatchObject({ pathname: `/items/${i}`, status: 200 + i });
      }
      expect(await total(ctx.owner.client, ctx.source.id)).toBe(25);
    });

    it("redacts secrets in every item, as single composes do, with the daemon's extra key names", async () => {
      const ctx = await setup({ config: { redact: { enabled: true, extraKeys: ['shop-pin'] } } });
      h = ctx.h;
      const secrets = {
        requestHeaders: { cookie: 'sid=1', 'Shop-Pin': '1234' },
        requestBody: { password: 'p', shop_pin: 'x', 'shop-pin': '5678' },
      };
      const body = [composeBody(ctx.source.id), composeBody(ctx.source.id, secrets)];
      const { ids } = await ctx.owner.client.call(contract.composeBatch, {
        params: { trafficSourceId: ctx.source.id },
        body,
      });
      const record = await ctx.owner.client.call(contract.getTraffic, {
        params: { trafficSourceId: ctx.source.id, id: ids[1] ?? '' },
      });
      expect(record.request).toMatchObject({
        headers: { cookie: '[REDACTED]', 'Shop-Pin': '[REDACTED]' },
        body: { password: '[REDACTED]', shop_pin: 'x', 'shop-pin': '[REDACTED]' },
      });
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
      const error = await rejection(
        ctx.owner.client.call(contract.composeBatch, { params: { trafficSourceId: ctx.source.id }, body }),
      );
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
      const error = await rejection(
        ctx.owner.client.call(contract.composeBatch, { params: { trafficSourceId: ctx.source.id }, body }),
      );
      expect(error.status).toBe(400);
      expect(error.body.issues).toEqual([
        { path: '1.trafficSourceId', message: 'must equal the trafficSourceId in the path' },
      ]);
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
      const error = await rejection(
        ctx.owner.client.call(contract.composeBatch, { params: { trafficSourceId: ctx.source.id }, body }),
      );
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
      // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- vitest's asymmetric matchers are typed `any`
      expect(await tooMany.json()).toMatchObject({ error: expect.stringMatching(/at most 1000/) });
      // Over the ordinary 1 MiB limit, under the batch's 16 MiB.
      const big = Array.from({ length: 1000 }, (_, i) =>
        composeBody(ctx.source.id, { responseBody: { i, text: 'x'.repeat(2000) } }),
      );
      const created = await call(big);
      expect(created.status).toBe(201);
      expect(((await created.json()) as { ids: string[] }).ids).toHaveLength(1000);
      expect(await total(ctx.owner.client, ctx.source.id)).toBe(1000);
    });

    it('reads the body as every JSON endpoint does: malformed, empty, too deep, a byte-order mark, charsets', async () => {
      const ctx = await setup();
      h = ctx.h;
      const post = async (body: string | undefined, contentType = 'application/json') => {
        const response = await ctx.h.fetch(`/http-traffic-record/${ctx.source.id}/batch`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ctx.owner.token}`, 'content-type': contentType },
          ...(body === undefined ? {} : { body }),
        });
        return { status: response.status, json: (await response.json()) as { error: string } };
      };
      const one = JSON.stringify([composeBody(ctx.source.id)]);
      expect(await post('[{"domainUrl":')).toEqual({
        status: 400,
        json: { statusCode: 400, error: 'Malformed JSON in request body', code: 'malformed_json' },
      });
      expect(await post(undefined)).toMatchObject({
        status: 400,
        json: { error: 'the body must be a JSON array of compose bodies' },
      });
      const deep = JSON.stringify([composeBody(ctx.source.id, { requestBody: 'HERE' })]).replace(
        '"HERE"',
        '['.repeat(300) + ']'.repeat(300),
      );
      expect(await post(deep)).toMatchObject({
        status: 400,
        json: { error: 'JSON in the request body is nested deeper than 256 levels' },
      });
      expect((await post(`\uFEFF${one}`)).status).toBe(201);
      expect((await post(one, 'application/json; charset=UTF-8')).status).toBe(201);
      expect(await post(one, 'application/json; charset=utf-16le')).toMatchObject({
        status: 415,
        json: { error: 'Unsupported charset; send UTF-8 JSON' },
      });
      expect(await post(one, 'application/json; Charset=ISO-8859-1')).toMatchObject({
        status: 415,
        json: { error: 'Unsupported charset; send UTF-8 JSON' },
      });
      expect(await post(one, 'text/plain')).toMatchObject({ status: 415 });
      expect(await total(ctx.owner.client, ctx.source.id)).toBe(2);
    });

    it('reads a gzip body, and an empty chunked one as no body', async () => {
      const ctx = await setup();
      h = ctx.h;
      const url = `/http-traffic-record/${ctx.source.id}/batch`;
      const headers = { authorization: `Bearer ${ctx.owner.token}`, 'content-type': 'application/json' };
      const zipped = gzipSync(JSON.stringify(Array.from({ length: 300 }, () => composeBody(ctx.source.id))));
      const created = await ctx.h.fetch(url, {
        method: 'POST',
        headers: { ...headers, 'content-encoding': 'gzip' },
        body: zipped,
      });
      expect(created.status).toBe(201);
      expect(await total(ctx.owner.client, ctx.source.id)).toBe(300);
      const empty = new ReadableStream({ start: (controller) => controller.close() });
      const refused = await ctx.h.fetch(url, { method: 'POST', headers, body: empty, duplex: 'half' });
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({ error: 'the body must be a JSON array of compose bodies' });
    });

    it('checks in the documented order: the body itself, then the path, then the items', async () => {
      const ctx = await setup();
      h = ctx.h;
      const post = async (path: string, body: string) =>
        (
          await ctx.h.fetch(`/http-traffic-record/${path}/batch`, {
            method: 'POST',
            headers: { authorization: `Bearer ${ctx.owner.token}`, 'content-type': 'application/json' },
            body,
          })
        ).json();
      expect(await post('not-a-uuid', '[{')).toMatchObject({
        statusCode: 400,
        error: 'Malformed JSON in request body',
        code: 'malformed_json',
      });
      expect(await post('not-a-uuid', JSON.stringify([{ method: 'TRACE' }]))).toMatchObject({
        statusCode: 400,
        issues: [{ path: 'trafficSourceId' }],
      });
      expect(
        await post(ctx.source.id, JSON.stringify([{ ...composeBody(ctx.source.id), method: 'TRACE' }])),
      ).toMatchObject({ statusCode: 400, issues: [{ path: '0.method' }] });
    });

    it('answers 413 past 16 MiB', async () => {
      const ctx = await setup();
      h = ctx.h;
      prepared = false;
      const body = Array.from({ length: 17 }, () =>
        composeBody(ctx.source.id, { responseBody: 'y'.repeat(1024 * 1024) }),
      );
      const error = await rejection(
        ctx.owner.client.call(contract.composeBatch, { params: { trafficSourceId: ctx.source.id }, body }),
      );
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
      // Tokens that may not post here at all still learn first that the source does not exist.
      expect((await rejection(post(readOnly, OTHER_ID))).status).toBe(404);
      expect((await rejection(post(stranger.client, OTHER_ID))).status).toBe(404);
      expect(
        (await rejection(post(await ctx.h.token(ctx.owner.id, { sourceId: ctx.source.id }), OTHER_ID))).status,
      ).toBe(404);
      expect((await rejection(post(stranger.client, ctx.source.id))).status).toBe(403);
      expect((await rejection(post(readOnly, ctx.source.id))).status).toBe(403);
      expect((await post(ingest, ctx.source.id)).ids).toHaveLength(1);
    });
  },
);
