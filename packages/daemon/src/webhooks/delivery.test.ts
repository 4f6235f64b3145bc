import { createHmac, timingSafeEqual } from 'node:crypto';
import { contract, type HttpTraffic } from '@tapline/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { manualClock, type Receiver, startReceiver, startWebhookApp, type WebhookApp } from '@tapline/testkit/daemon';

const DISCORD_PATH = '/api/webhooks/123456/tok-en_1';
const SLACK_PATH = '/services/T000/B000/XXXX';

interface DiscordEmbed {
  title: string;
  description: string;
  color: number;
  fields: { name: string; value: string }[];
  footer: { text: string };
}

describe('webhook delivery to fake Discord, Slack and HTTP receivers', () => {
  const clock = manualClock('2026-11-21T10:00:00.000Z');
  let app: WebhookApp;
  let receiver: Receiver;
  let sourceId: string;

  beforeEach(async () => {
    clock.set('2026-11-21T10:00:00.000Z');
    app = await startWebhookApp({ clock });
    sourceId = await app.source();
  });
  afterEach(async () => {
    await app.close();
    await receiver?.close();
  });

  const addWebhook = (type: 'discord' | 'slack' | 'http', level: 'fatal' | 'warning' | 'info', value: string) =>
    app.client.call(contract.createWebhook, { params: { trafficSourceId: sourceId }, body: { type, level, value } });

  it('posts a Discord embed: title, colour by level, latency, domain and time', async () => {
    receiver = await startReceiver(DISCORD_PATH);
    await addWebhook('discord', 'fatal', receiver.url);
    await app.compose(sourceId, { method: 'POST', status: 503, elapsedTime: 231.4 });
    await app.worker.runDue();

    expect(receiver.requests).toHaveLength(1);
    const request = receiver.requests[0]!;
    expect(request.method).toBe('POST');
    expect(request.headers['content-type']).toBe('application/json');
    const embed = request.json<{ embeds: DiscordEmbed[] }>().embeds[0]!;
    expect(embed.title).toBe('FATAL · POST /api/orders → 503');
    expect(embed.color).toBe(0xe5484d);
    expect(Object.fromEntries(embed.fields.map((f) => [f.name, f.value]))).toEqual({
      Latency: '231 ms',
      Domain: 'shop.example.com',
      Time: '2026-11-21T10:00:00.000Z',
    });
  });

  it("keeps a Discord embed within Discord's limits for a huge pathname", async () => {
    receiver = await startReceiver(DISCORD_PATH);
    await addWebhook('discord', 'warning', receiver.url);
    await app.compose(sourceId, { status: 404, pathnameUrl: `/${'x'.repeat(8000)}` });
    await app.worker.runDue();

    const embed = receiver.requests[0]!.json<{ embeds: DiscordEmbed[] }>().embeds[0]!;
    const chars = (s: string) => Array.from(s).length;
    expect(chars(embed.title)).toBeLessThanOrEqual(256);
    expect(embed.title.startsWith('WARNING · GET /xxx')).toBe(true);
    expect(chars(embed.description)).toBeLessThanOrEqual(4096);
    const total =
      chars(embed.title) +
      chars(embed.description) +
      chars(embed.footer.text) +
      embed.fields.reduce((n, f) => n + chars(f.name) + chars(f.value), 0);
    expect(total).toBeLessThanOrEqual(6000);
    expect(embed.color).toBe(0xf5a623);
  });

  it('posts Slack blocks with a text fallback', async () => {
    receiver = await startReceiver(SLACK_PATH);
    await addWebhook('slack', 'fatal', receiver.url);
    await app.compose(sourceId, { method: 'DELETE', status: 500 });
    await app.worker.runDue();

    const body = receiver.requests[0]!.json<{
      text: string;
      blocks: { type: string; text?: { text: string }; fields?: { text: string }[] }[];
    }>();
    expect(body.text).toContain('FATAL · DELETE /api/orders → 500');
    expect(body.blocks.map((b) => b.type)).toEqual(['header', 'section', 'section', 'context']);
    expect(body.blocks[0]!.text!.text).toBe('FATAL · DELETE /api/orders → 500');
    expect(body.blocks[2]!.fields!.map((f) => f.text)).toEqual([
      '*Latency*\n13 ms',
      '*Domain*\nshop.example.com',
      '*Time*\n2026-11-21T10:00:00.000Z',
    ]);
  });

  it('signs an http payload so the receiver can verify it with the secret from the 201', async () => {
    receiver = await startReceiver();
    const created = await addWebhook('http', 'fatal', receiver.url);
    expect(created.secret).toMatch(/^[0-9a-f]{64}$/);
    await app.compose(sourceId, { status: 502 });
    await app.worker.runDue();

    const request = receiver.requests[0]!;
    const expected = `sha256=${createHmac('sha256', created.secret!).update(request.body).digest('hex')}`;
    const sent = String(request.headers['x-tapline-signature']);
    expect(timingSafeEqual(Buffer.from(sent), Buffer.from(expected))).toBe(true);
    expect(createHmac('sha256', 'wrong').update(request.body).digest('hex')).not.toBe(sent.slice(7));

    const listed = await app.client.call(contract.listTraffic, { params: { trafficSourceId: sourceId } });
    expect(request.json()).toEqual({
      event: 'traffic',
      webhookId: created.id,
      trafficSourceId: sourceId,
      entry: listed.data[0],
    });
    expect(request.headers['x-tapline-delivery']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('notifies only webhooks whose level equals the entry level', async () => {
    receiver = await startReceiver();
    const [fatal, warning, info] = await Promise.all([
      startReceiver('/fatal'),
      startReceiver('/warning'),
      startReceiver('/info'),
    ]);
    try {
      await addWebhook('http', 'fatal', fatal.url);
      await addWebhook('http', 'warning', warning.url);
      await addWebhook('http', 'info', info.url);
      await app.compose(sourceId, { status: 503 });
      await app.compose(sourceId, { status: 404 });
      await app.compose(sourceId, { status: 429 });
      await app.compose(sourceId, { status: 201 });
      await app.worker.runDue();

      const statuses = (r: Receiver) => r.requests.map((q) => q.json<{ entry: HttpTraffic }>().entry.status);
      expect(statuses(fatal)).toEqual([503]);
      expect(statuses(warning).sort()).toEqual([404, 429]);
      expect(statuses(info)).toEqual([201]);
      expect(fatal.requests[0]!.json<{ entry: HttpTraffic }>().entry.level).toBe('FATAL');
    } finally {
      await Promise.all([fatal.close(), warning.close(), info.close()]);
    }
  });

  it('sends a test message now and lists the attempt', async () => {
    receiver = await startReceiver(DISCORD_PATH);
    const webhook = await addWebhook('discord', 'fatal', receiver.url);
    const result = await app.client.call(contract.testWebhook, { params: { webhookId: webhook.id } });
    expect(result.delivered).toBe(true);
    expect(result.attempt).toMatchObject({
      kind: 'test',
      attempt: 1,
      outcome: 'delivered',
      statusCode: 204,
      error: null,
    });
    expect(receiver.requests[0]!.json<{ embeds: DiscordEmbed[] }>().embeds[0]!.title).toBe('Tapline test message');

    const page = await app.client.call(contract.listWebhookDeliveries, { params: { webhookId: webhook.id } });
    expect(page.meta).toEqual({ total: 1, page: 1, limit: 10 });
    expect(page.data[0]!.id).toBe(result.attempt.id);
  });

  it('reports a failed test without retrying it', async () => {
    receiver = await startReceiver();
    receiver.answer({ status: 500, body: 'boom' });
    const webhook = await addWebhook('http', 'fatal', receiver.url);
    const result = await app.client.call(contract.testWebhook, { params: { webhookId: webhook.id } });
    expect(result).toMatchObject({
      delivered: false,
      attempt: { outcome: 'failed', statusCode: 500, error: 'answered 500: boom' },
    });
    clock.advance(60_000);
    await app.worker.runDue();
    expect(receiver.requests).toHaveLength(1);
  });

  it('answers 404 for an unknown webhook and 403 for one of another user', async () => {
    receiver = await startReceiver();
    const webhook = await addWebhook('http', 'fatal', receiver.url);
    const stranger = await app.stranger();
    const unknown = '01a1fc8d-93a2-767e-92f3-e5a71388f88b';
    await expect(
      app.client.call(contract.listWebhookDeliveries, { params: { webhookId: unknown } }),
    ).rejects.toMatchObject({ status: 404, body: { error: 'Webhook not found' } });
    await expect(
      stranger.call(contract.listWebhookDeliveries, { params: { webhookId: webhook.id } }),
    ).rejects.toMatchObject({ status: 403 });
    await expect(stranger.call(contract.testWebhook, { params: { webhookId: webhook.id } })).rejects.toMatchObject({
      status: 403,
    });
    expect(receiver.requests).toHaveLength(0);
  });
});
