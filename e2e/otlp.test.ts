import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { contract, createClient, type TaplineClient } from '@tapline/shared';
import { until } from '@tapline/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SpawnedDaemon, startDaemon, tempHome } from './support/binaries.js';
import { runOtelApp } from './support/otel-run.js';

const APP = join(dirname(fileURLToPath(import.meta.url)), 'support', 'otel-app.cjs');

/**
 * Runs the instrumented Express app (support/otel-app.cjs) with `env`, sends it three requests,
 * stops it (the SDK flushes on shutdown).
 */
async function runApp(env: Record<string, string>): Promise<void> {
  await runOtelApp(APP, env, async (base) => {
    expect(
      (await fetch(`${base}/orders/42?page=2`, { headers: { authorization: 'Bearer app-user-token' } })).status,
    ).toBe(200);
    expect(
      (
        await fetch(`${base}/orders`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"sku":"A-1"}',
        })
      ).status,
    ).toBe(201);
    expect((await fetch(`${base}/boom`)).status).toBe(500);
  });
}

describe('the OpenTelemetry Node SDK exports to taplined', () => {
  const home = tempHome();
  let daemon: SpawnedDaemon;
  let owner: TaplineClient;
  beforeAll(async () => {
    daemon = await startDaemon(home.path);
    owner = createClient({ baseUrl: daemon.url, token: daemon.token });
  });
  afterAll(async () => {
    await daemon.stop();
    home.remove();
  });

  async function stored(sourceId: string) {
    const entries = (await owner.call(contract.listTraffic, { params: { trafficSourceId: sourceId }, query: {} })).data;
    const logs = (await owner.call(contract.listCoreLogs, { params: { trafficSourceId: sourceId }, query: {} })).data;
    return { entries, logs };
  }

  async function expectThreeRequests(sourceId: string, port: (domain: string) => void) {
    // The SDK's shutdown may end the app while its last export is still on the wire; the daemon
    // stores what it received all the same, a moment after the app has exited.
    await until(async () => (await stored(sourceId)).entries.length >= 3, 'the three exported requests to be stored');
    const { entries, logs } = await stored(sourceId);
    expect(entries.map((e) => `${e.method} ${e.status} ${e.pathname} ${e.route ?? '-'}`).sort()).toEqual([
      'GET 200 /orders/42 /orders/{id}',
      'GET 500 /boom /boom',
      'POST 201 /orders /orders',
    ]);
    for (const entry of entries) {
      port(entry.domain);
      expect(entry.protocol).toBe('HTTP');
      expect(entry.elapsedTime).toBeGreaterThan(0);
    }
    const get = entries.find((e) => e.pathname === '/orders/42');
    const record = await owner.call(contract.getTraffic, { params: { trafficSourceId: sourceId, id: get?.id ?? '' } });
    expect(record.request.queryParams).toEqual({ page: '2' });
    const boom = entries.find((e) => e.pathname === '/boom');
    expect(boom?.level).toBe('FATAL');
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({
      title: 'TypeError',
      description: 'order 7 has no customer',
      source: 'orders-api',
      httpTrafficId: boom?.id,
    });
    expect(logs[0]?.stack).toContain('otel-app.cjs');
    return entries;
  }

  it('JSON exporter (old and current attribute names, http/dup), base endpoint, source from service.name', async () => {
    const source = await owner.call(contract.createTrafficSource, {
      body: { name: 'orders-api', trafficDomain: 'orders.local' },
    });
    const before = Date.now();
    await runApp({
      EXPORTER: 'json',
      OTEL_SEMCONV_STABILITY_OPT_IN: 'http/dup',
      OTEL_SERVICE_NAME: 'orders-api',
      OTEL_EXPORTER_OTLP_ENDPOINT: daemon.url,
      OTEL_EXPORTER_OTLP_HEADERS: `authorization=Bearer ${daemon.token}`,
    });
    const entries = await expectThreeRequests(source.id, (domain) =>
      expect(domain).toMatch(/^(127\.0\.0\.1|localhost):\d+$/),
    );
    // createdAt is when each request started in the app, not when the batch reached the daemon.
    for (const entry of entries) expect(Date.parse(entry.createdAt)).toBeGreaterThanOrEqual(before - 1000);
  });

  it('protobuf exporter (the SDK default conventions), traces endpoint, source from x-tapline-source', async () => {
    const source = await owner.call(contract.createTrafficSource, {
      body: { name: 'proto-source', trafficDomain: 'orders.local' },
    });
    await runApp({
      EXPORTER: 'proto',
      OTEL_SERVICE_NAME: 'orders-api',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${daemon.url}/v1/traces`,
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: `authorization=Bearer ${daemon.token},x-tapline-source=proto-source`,
    });
    await expectThreeRequests(source.id, (domain) => expect(domain).toMatch(/^(127\.0\.0\.1|localhost):\d+$/));
  });
});
