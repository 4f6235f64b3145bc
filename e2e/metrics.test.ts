import { execa } from 'execa';
import { composeBody, promSample as sample, promSeries } from '@tapline/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, type SpawnedDaemon, startDaemon, tempHome } from './support/binaries.js';
import { createSource } from './support/compose.js';

/** What the built daemon answers to `GET /metrics` with `token`, and whether promtool accepts it. */
async function scrape(
  url: string,
  token: string | undefined,
  query = '',
): Promise<{ status: number; type: string; text: string }> {
  const response = await fetch(
    `${url}/metrics${query}`,
    token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } },
  );
  return { status: response.status, type: response.headers.get('content-type') ?? '', text: await response.text() };
}

/** `promtool check metrics` (Debian's prometheus package) on `text`: its exit code and complaints. */
async function promtool(text: string): Promise<{ exitCode: number | undefined; output: string }> {
  const result = await execa('promtool', ['check', 'metrics'], { input: text, reject: false });
  return { exitCode: result.exitCode, output: `${result.stdout}${result.stderr}` };
}

describe('GET /metrics of the built daemon, checked by promtool', () => {
  const home = tempHome();
  let daemon: SpawnedDaemon;
  let shop: string;
  let other: string;
  const send = async (sourceId: string, overrides: Record<string, unknown>) => {
    const response = await fetch(`${daemon.url}/http-traffic-record/${sourceId}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(composeBody(sourceId, overrides)),
    });
    expect(response.status, await response.text()).toBe(201);
  };

  beforeAll(async () => {
    // Webhook messages are queued, never sent: the outbox's backlog stays what was queued.
    daemon = await startDaemon(home.path, ['--no-webhook-delivery']);
    shop = await createSource(daemon.url, daemon.token, 'shop');
    other = await createSource(daemon.url, daemon.token, 'other');
    const hook = await fetch(`${daemon.url}/webhooks/${shop}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        type: 'discord',
        level: 'fatal',
        value: 'https://discord.com/api/webhooks/1/metrics-test',
      }),
    });
    expect(hook.status).toBe(201);
    // Known latencies and statuses; a domain and a path with a quote and a backslash, which the labels must escape.
    await send(shop, { domainUrl: 'https://shop.example.com', pathnameUrl: '/users/42', elapsedTime: 4, status: 200 });
    await send(shop, { domainUrl: 'https://shop.example.com', pathnameUrl: '/users/43', elapsedTime: 40, status: 200 });
    await send(shop, {
      domainUrl: 'https://shop.example.com',
      pathnameUrl: '/users/44',
      elapsedTime: 700,
      status: 503,
    });
    await send(shop, {
      domainUrl: 'https://we"ird.example.com',
      pathnameUrl: '/q/say"hi\\there',
      elapsedTime: 12,
      status: 200,
      method: 'POST',
    });
    await send(other, {
      domainUrl: 'https://other.example.com',
      pathnameUrl: '/orders/7',
      elapsedTime: 20,
      status: 404,
    });
  });
  afterAll(async () => {
    await daemon.stop();
    home.remove();
  });

  it('answers the Prometheus text format that promtool accepts, with per-route counters and latency histograms', async () => {
    const answer = await scrape(daemon.url, daemon.token);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.type).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(await promtool(answer.text)).toEqual({ exitCode: 0, output: '' });

    const users = (name: string, status: string, le?: string) =>
      promSeries(
        name,
        `source="${shop}",domain="shop.example.com",route="/users/{id}",method="GET",status_class="${status}"`,
        le,
      );
    expect(sample(answer.text, users('tapline_http_requests_total', '2xx'))).toBe(2);
    expect(sample(answer.text, users('tapline_http_requests_total', '5xx'))).toBe(1);
    expect(sample(answer.text, users('tapline_http_request_duration_seconds_bucket', '2xx', '0.005'))).toBe(1);
    expect(sample(answer.text, users('tapline_http_request_duration_seconds_bucket', '2xx', '0.025'))).toBe(1);
    expect(sample(answer.text, users('tapline_http_request_duration_seconds_bucket', '2xx', '0.05'))).toBe(2);
    expect(sample(answer.text, users('tapline_http_request_duration_seconds_bucket', '5xx', '0.5'))).toBe(0);
    expect(sample(answer.text, users('tapline_http_request_duration_seconds_bucket', '5xx', '1'))).toBe(1);
    expect(sample(answer.text, users('tapline_http_request_duration_seconds_sum', '2xx'))).toBeCloseTo(0.044, 9);
    // Quotes and backslashes escaped as the format says (\" and \\); the braces of a template need none.
    expect(
      sample(
        answer.text,
        `tapline_http_requests_total{source="${shop}",domain="we\\"ird.example.com",route="/q/say\\"hi\\\\there",method="POST",status_class="2xx"}`,
      ),
    ).toBe(1);
    expect(
      sample(
        answer.text,
        `tapline_http_requests_total{source="${other}",domain="other.example.com",route="/orders/{id}",method="GET",status_class="4xx"}`,
      ),
    ).toBe(1);
  });

  it("shows the daemon's health: ingest, queue depth, database size, open streams, outbox backlog", async () => {
    const stream = new AbortController();
    const opened = await fetch(`${daemon.url}/http-traffic/${shop}/stream`, {
      headers: { authorization: `Bearer ${daemon.token}` },
      signal: stream.signal,
    });
    expect(opened.status).toBe(200);
    try {
      const { text } = await scrape(daemon.url, daemon.token);
      expect(sample(text, 'tapline_ingested_entries_total')).toBe(5);
      expect(sample(text, 'tapline_ingest_queue_records')).toBe(0);
      expect(sample(text, 'tapline_open_streams')).toBe(1);
      expect(sample(text, 'tapline_database_size_bytes')).toBeGreaterThan(0);
      // The one 503 matched the fatal-level webhook; --no-webhook-delivery leaves it queued.
      expect(sample(text, 'tapline_webhook_outbox_backlog')).toBe(1);
    } finally {
      stream.abort();
    }
  });

  it('shows a token only what it may see: a restricted token its source, ?source= one source, 400/403/404 as every route', async () => {
    const [restricted, ingest, read] = await Promise.all([
      admin(home.path, ['token', 'create', 'local@localhost', '--source', other]),
      admin(home.path, ['token', 'create', 'local@localhost', '--scope', 'ingest']),
      admin(home.path, ['token', 'create', 'local@localhost', '--scope', 'read']),
    ]);
    const own = await scrape(daemon.url, restricted);
    expect(own.status).toBe(200);
    expect(own.text).toContain(`source="${other}"`);
    expect(own.text).not.toContain(shop);
    expect((await scrape(daemon.url, restricted, `?source=${shop}`)).status).toBe(403);

    const one = await scrape(daemon.url, read, `?source=${shop}`);
    expect(one.status).toBe(200);
    expect(one.text).toContain(`source="${shop}"`);
    expect(one.text).not.toContain(other);
    expect(await promtool(one.text)).toEqual({ exitCode: 0, output: '' });

    expect((await scrape(daemon.url, ingest)).status).toBe(403);
    expect((await scrape(daemon.url, undefined)).status).toBe(400);
    expect((await scrape(daemon.url, 'not-a-jwt')).status).toBe(401);
    expect((await scrape(daemon.url, daemon.token, '?source=01a1fc8d-93a2-767e-92f3-e5a71388f88b')).status).toBe(404);
    const bad = await scrape(daemon.url, daemon.token, '?source=nope');
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('source must be a valid UUID');
  });

  it('drops the series of a deleted source', async () => {
    const gone = await createSource(daemon.url, daemon.token, 'gone');
    await send(gone, { pathnameUrl: '/a/1' });
    expect((await scrape(daemon.url, daemon.token)).text).toContain(`source="${gone}"`);
    const deleted = await fetch(`${daemon.url}/traffic-source/${gone}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${daemon.token}` },
    });
    expect(deleted.status).toBe(204);
    const after = await scrape(daemon.url, daemon.token);
    expect(after.text).not.toContain(gone);
    expect(await promtool(after.text)).toEqual({ exitCode: 0, output: '' });
  });
});
