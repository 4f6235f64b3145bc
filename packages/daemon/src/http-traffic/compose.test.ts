import { ApiError, contract } from '@tapline/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { composeBody, type Harness, startHarness } from '../testing/harness.js';

describe('POST /http-traffic-record/:trafficSourceId', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(() => h.close());

  it('composes a record: level from status, domain from the URL, secrets redacted', async () => {
    const { client } = await h.user();
    const source = await client.call(contract.createTrafficSource, { body: { name: 'shop', trafficDomain: 'shop.example.com' } });
    const record = await client.call(contract.composeRecord, {
      params: { trafficSourceId: source.id },
      body: composeBody(source.id, {
        domainUrl: 'https://Shop.Example.com:443/ignored',
        status: 503,
        method: 'post',
        protocol: 'https',
        requestHeaders: { Authorization: 'Bearer abc', accept: 'json' },
        requestBody: { user: { password: 'hunter2' }, items: [{ apiKey: 'k' }] },
        queryParams: { access_token: 't', page: 2 },
      }),
    });
    expect(record).toMatchObject({
      status: 503,
      level: 'FATAL',
      method: 'POST',
      protocol: 'HTTPS',
      domain: 'shop.example.com',
      pathname: '/api/orders',
      request: {
        headers: { Authorization: '[REDACTED]', accept: 'json' },
        body: { user: { password: '[REDACTED]' }, items: [{ apiKey: '[REDACTED]' }] },
        queryParams: { access_token: '[REDACTED]', page: '2' },
      },
    });
    expect(record.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('answers 400 with the field path when the body and path disagree on the source', async () => {
    const { client } = await h.user();
    const source = await client.call(contract.createTrafficSource, { body: { name: 'a', trafficDomain: 'a.example.com' } });
    const other = '01a1fc8d-93a2-767e-92f3-e5a71388f88b';
    const error = await client.call(contract.composeRecord, { params: { trafficSourceId: source.id }, body: composeBody(other) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(400);
    expect((error as ApiError).body.issues?.[0]?.path).toBe('trafficSourceId');
  });
});
