import { contract } from '@tapline/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { promSample as sample, promSeries } from '@tapline/testkit';
import {
  adminShutdown,
  composeBody,
  createSource,
  databaseOutage,
  type Harness,
  raw,
  rawJson,
  startHarness,
} from '@tapline/testkit/daemon';

describe('GET /metrics in-process, on each engine (issue 26)', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('counts each committed entry once per route, with its latency, and reads the outbox and the database size', async () => {
    // Notifications are queued, never sent, so the backlog is what was queued.
    h = await startHarness({
      config: { webhookDelivery: false },
      pruner: { start: false },
      routeBackfill: { start: false },
    });
    const user = await h.user();
    const sourceId = (await createSource(user.client)).id;
    await user.client.call(contract.createWebhook, {
      params: { trafficSourceId: sourceId },
      body: { type: 'discord', level: 'fatal', value: 'https://discord.com/api/webhooks/1/metrics' },
    });
    const items = [3, 30, 300, 3000].map((elapsedTime, i) =>
      composeBody(sourceId, { pathnameUrl: `/users/${i}`, elapsedTime, status: i === 3 ? 503 : 200 }),
    );
    expect((await rawJson(h, 'POST', `/http-traffic-record/${sourceId}/batch`, user.token, items)).status).toBe(201);

    const answer = await raw(h, 'GET', '/metrics', { token: user.token });
    expect(answer.status, answer.text).toBe(200);
    const series = (name: string, status: string, le?: string) =>
      promSeries(
        name,
        `source="${sourceId}",domain="shop.example.com",route="/users/{id}",method="GET",status_class="${status}"`,
        le,
      );
    expect(sample(answer.text, series('tapline_http_requests_total', '2xx'))).toBe(3);
    expect(sample(answer.text, series('tapline_http_requests_total', '5xx'))).toBe(1);
    expect(sample(answer.text, series('tapline_http_request_duration_seconds_bucket', '2xx', '0.005'))).toBe(1);
    expect(sample(answer.text, series('tapline_http_request_duration_seconds_bucket', '2xx', '0.25'))).toBe(2);
    expect(sample(answer.text, series('tapline_http_request_duration_seconds_bucket', '2xx', '0.5'))).toBe(3);
    expect(sample(answer.text, series('tapline_http_request_duration_seconds_bucket', '5xx', '2.5'))).toBe(0);
    expect(sample(answer.text, series('tapline_http_request_duration_seconds_bucket', '5xx', '5'))).toBe(1);
    expect(sample(answer.text, 'tapline_ingested_entries_total')).toBe(4);
    expect(sample(answer.text, 'tapline_webhook_outbox_backlog')).toBe(1);
    expect(sample(answer.text, 'tapline_database_size_bytes')).toBeGreaterThan(0);

    // Another user sees the health, and nothing of this source.
    const stranger = await h.user();
    const theirs = await raw(h, 'GET', '/metrics', { token: stranger.token });
    expect(theirs.status).toBe(200);
    expect(theirs.text).not.toContain(sourceId);
    expect(sample(theirs.text, 'tapline_ingested_entries_total')).toBe(4);

    // The same batch again, now that the source's series are known: its entries are counted by
    // label set at once (decisions §20.25), to the same numbers.
    expect((await rawJson(h, 'POST', `/http-traffic-record/${sourceId}/batch`, user.token, items)).status).toBe(201);
    const again = (await raw(h, 'GET', '/metrics', { token: user.token })).text;
    expect(sample(again, series('tapline_http_requests_total', '2xx'))).toBe(6);
    expect(sample(again, series('tapline_http_requests_total', '5xx'))).toBe(2);
    expect(sample(again, series('tapline_http_request_duration_seconds_bucket', '2xx', '0.005'))).toBe(2);
    expect(sample(again, series('tapline_http_request_duration_seconds_bucket', '2xx', '0.25'))).toBe(4);
    expect(sample(again, series('tapline_http_request_duration_seconds_bucket', '2xx', '0.5'))).toBe(6);
    expect(sample(again, series('tapline_http_request_duration_seconds_sum', '2xx'))).toBeCloseTo(0.666, 9);
    expect(sample(again, series('tapline_http_request_duration_seconds_count', '2xx'))).toBe(6);
  });

  it('answers 503 with Retry-After while the database cannot serve, and 200 once it is back', async () => {
    h = await startHarness({ pruner: { start: false }, routeBackfill: { start: false } });
    const user = await h.user();
    const outage = databaseOutage(h.deps.db);
    outage.fail(adminShutdown());
    const down = await raw(h, 'GET', '/metrics', { token: user.token });
    expect({ status: down.status, retryAfter: down.headers.get('retry-after'), body: down.json }).toEqual({
      status: 503,
      retryAfter: '2',
      body: { statusCode: 503, error: 'The database is unavailable; retry shortly', code: 'database_unavailable' },
    });
    outage.heal();
    expect((await raw(h, 'GET', '/metrics', { token: user.token })).status).toBe(200);
  });
});
