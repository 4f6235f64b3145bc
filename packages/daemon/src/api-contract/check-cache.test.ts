import { type ApiCheckAnswer, contract, type OpenApiDocument, type TaplineClient } from '@tapline/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeBody, createSource, type Harness, rawJson, startHarness } from '@tapline/testkit/daemon';
import { CheckerCache } from './check.js';

/** A spec whose one response schema types `id` as `type`. */
const specOf = (type: string): OpenApiDocument => ({
  openapi: '3.1.0',
  info: { title: 'shop', version: '1' },
  paths: {
    '/items/{id}': {
      get: {
        responses: {
          '200': {
            description: 'ok',
            content: {
              'application/json': {
                schema: { type: 'object', required: ['id'], properties: { id: { type } } },
              },
            },
          },
        },
      },
    },
  },
});

/** Issue 28, "Speed": a spec's compiled checker is kept between checks (decisions §25.9). */
describe('checks of the same spec, one after another', () => {
  let h: Harness;
  let client: TaplineClient;
  let token: string;
  let sourceId: string;

  beforeAll(async () => {
    h = await startHarness({ routeBackfill: { start: false } });
    ({ client, token } = await h.user());
    sourceId = (await createSource(client)).id;
    for (const id of [1, 2, 'three'])
      await rawJson(
        h,
        'POST',
        `/http-traffic-record/${sourceId}`,
        token,
        composeBody(sourceId, {
          pathnameUrl: `/items/${id}`,
          responseHeaders: { 'content-type': 'application/json' },
          responseBody: { id },
        }),
      );
  });

  afterAll(() => h.close());

  const typeErrors = async (spec: OpenApiDocument) => {
    const report: ApiCheckAnswer = await client.call(contract.checkApiContract, {
      params: { trafficSourceId: sourceId },
      body: { spec },
    });
    return report.violations.filter((v) => v.rule === 'type').reduce((n, v) => n + v.count, 0);
  };

  it('answer by the spec sent, never by one checked before it', async () => {
    expect(await typeErrors(specOf('integer'))).toBe(1);
    expect(await typeErrors(specOf('string'))).toBe(2);
    expect(await typeErrors(specOf('integer'))).toBe(1);
    expect(await typeErrors(specOf('boolean'))).toBe(3);
  });

  it('still answer 400 naming spec for a spec that does not compile, each time', async () => {
    const broken = specOf('integer');
    const item = broken.paths as Record<string, { get: { responses: Record<string, unknown> } }>;
    item['/items/{id}']!.get.responses['200'] = {
      description: 'ok',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Missing' } } },
    };
    for (let i = 0; i < 2; i++) {
      const answer = await rawJson(h, 'POST', `/api-contract/${sourceId}/check`, token, { spec: broken });
      expect(answer.status, answer.text).toBe(400);
      expect(answer.text).toContain('spec');
    }
  });
});

describe('the kept checkers', () => {
  it('serve an equal spec by the one compiled, and forget the least recently used past their size', () => {
    const cache = new CheckerCache(2);
    const first = cache.of(specOf('integer'));
    expect(cache.of(specOf('integer'))).toBe(first);
    const second = cache.of(specOf('string'));
    expect(cache.of(specOf('integer'))).toBe(first);
    cache.of(specOf('boolean'));
    expect(cache.of(specOf('integer'))).toBe(first);
    expect(cache.of(specOf('string'))).not.toBe(second);
  });

  it('do not keep a spec of more than a MiB of JSON, whose compiled form would be far larger', () => {
    const cache = new CheckerCache(2);
    const large = { ...specOf('integer'), info: { title: 'shop', version: '1', description: 'x'.repeat(1 << 20) } };
    expect(cache.of(large)).not.toBe(cache.of(large));
  });
});
