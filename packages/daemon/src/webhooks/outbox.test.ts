import { contract, type HttpTraffic } from '@tapline/shared';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { manualClock, type Receiver, startReceiver, startWebhookApp, type WebhookApp } from '@tapline/testkit/daemon';
import { claimDue, LEASE_MS } from './delivery-repo.js';

interface Payload {
  event: string;
  entry?: HttpTraffic;
  summary?: { count: number; text: string; pathnames: Record<string, number> };
}

describe('the webhook outbox', () => {
  const clock = manualClock('2026-11-21T10:00:00.000Z');
  let app: WebhookApp;
  let receiver: Receiver;
  let sourceId: string;

  beforeEach(async () => {
    clock.set('2026-11-21T10:00:00.000Z');
    app = await startWebhookApp({ clock, timeoutMs: 300 });
    receiver = await startReceiver();
    sourceId = await app.source();
  });
  afterEach(async () => {
    await app.close();
    await receiver.close();
  });

  const addWebhook = (level: 'fatal' | 'warning' = 'fatal', value = receiver.url) =>
    app.client.call(contract.createWebhook, {
      params: { trafficSourceId: sourceId },
      body: { type: 'http', level, value },
    });
  const attempts = (webhookId: string) =>
    app.client.call(contract.listWebhookDeliveries, { params: { webhookId }, query: { limit: 100 } });
  const pending = async () =>
    (await app.db.selectFrom('webhook_deliveries').select('status').where('status', '=', 'pending').execute()).length;

  it('writes the delivery row with the entry, before any worker runs', async () => {
    const webhook = await addWebhook();
    await app.compose(sourceId, { status: 500 });
    const rows = await app.db.selectFrom('webhook_deliveries').selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ webhook_id: webhook.id, kind: 'traffic', status: 'pending', attempts: 0 });
    expect(receiver.requests).toHaveLength(0);
  });

  it('retries a 500 with backoff: first retry within 2 s, then four times longer, each attempt recorded', async () => {
    receiver.answer({ status: 500, body: 'down' }, { status: 500, body: 'still down' }, { status: 200 });
    const webhook = await addWebhook();
    await app.compose(sourceId, { status: 503 });

    expect(await app.worker.runDue()).toBe(1);
    expect(receiver.requests).toHaveLength(1);
    clock.advance(1_999);
    await app.worker.runDue();
    expect(receiver.requests).toHaveLength(1);
    clock.advance(1);
    await app.worker.runDue();
    expect(receiver.requests).toHaveLength(2);
    clock.advance(7_999);
    await app.worker.runDue();
    expect(receiver.requests).toHaveLength(2);
    clock.advance(1);
    await app.worker.runDue();
    expect(receiver.requests).toHaveLength(3);
    expect(receiver.requests.map((r) => r.headers['x-tapline-attempt'])).toEqual(['1', '2', '3']);
    expect(new Set(receiver.requests.map((r) => r.body)).size).toBe(1);

    const page = await attempts(webhook.id);
    expect(page.data.map((a) => [a.attempt, a.outcome, a.statusCode, a.error])).toEqual([
      [3, 'delivered', 200, null],
      [2, 'retrying', 500, 'answered 500: still down'],
      [1, 'retrying', 500, 'answered 500: down'],
    ]);
    expect(page.data[2]!.nextAttemptAt).toBe('2026-11-21T10:00:02.000Z');
    expect(page.data[1]!.nextAttemptAt).toBe('2026-11-21T10:00:10.000Z');
  });

  it('honours 429 with Retry-After, and Discord-style retry_after in the body', async () => {
    receiver.answer(
      { status: 429, headers: { 'retry-after': '7' } },
      {
        status: 429,
        headers: { 'content-type': 'application/json' },
        body: '{"message":"slow down","retry_after":0.5}',
      },
      { status: 204 },
    );
    const webhook = await addWebhook();
    await app.compose(sourceId, { status: 503 });
    await app.worker.runDue();
    clock.advance(6_999);
    await app.worker.runDue();
    expect(receiver.requests).toHaveLength(1);
    clock.advance(1);
    await app.worker.runDue();
    expect(receiver.requests).toHaveLength(2);
    clock.advance(500);
    await app.worker.runDue();
    expect(receiver.requests).toHaveLength(3);
    expect((await attempts(webhook.id)).data.map((a) => a.outcome)).toEqual(['delivered', 'retrying', 'retrying']);
  });

  it('gives up at once on a 4xx other than 408/429, and on a redirect it does not follow', async () => {
    const target = await startReceiver('/moved');
    try {
      receiver.answer({ status: 404, body: 'no such hook' }, { status: 302, headers: { location: target.url } });
      const webhook = await addWebhook();
      await app.compose(sourceId, { status: 503 });
      await app.compose(sourceId, { status: 504 });
      await app.worker.runDue();
      clock.advance(60 * 60_000);
      await app.worker.runDue();
      expect(receiver.requests).toHaveLength(2);
      expect(target.requests).toHaveLength(0);
      const page = await attempts(webhook.id);
      expect(page.data.map((a) => [a.outcome, a.statusCode])).toEqual([
        ['failed', 302],
        ['failed', 404],
      ]);
      expect(page.data[0]!.error).toContain('not followed');
    } finally {
      await target.close();
    }
  });

  it('stops after six attempts over about ten minutes', async () => {
    receiver.answer({ status: 503 });
    const webhook = await addWebhook();
    await app.compose(sourceId, { status: 500 });
    for (let second = 0; second < 20 * 60; second++) {
      await app.worker.runDue();
      clock.advance(1_000);
    }
    const page = await attempts(webhook.id);
    expect(page.data).toHaveLength(6);
    expect(page.data[0]).toMatchObject({ attempt: 6, outcome: 'failed', nextAttemptAt: null });
    const span = Date.parse(page.data[0]!.createdAt) - Date.parse(page.data[5]!.createdAt);
    expect(span).toBeGreaterThan(8 * 60_000);
    expect(span).toBeLessThan(12 * 60_000);
  });

  it('retries when the receiver does not answer in time', async () => {
    receiver.answer({ status: 200, hang: true });
    const webhook = await addWebhook();
    await app.compose(sourceId, { status: 500 });
    await app.worker.runDue();
    const [attempt] = (await attempts(webhook.id)).data;
    expect(attempt).toMatchObject({ outcome: 'retrying', statusCode: null, error: 'no answer within 0.3 s' });
  });

  it('folds a storm: 5 messages a minute, the rest in one summary at the end of the minute', async () => {
    const webhook = await addWebhook();
    for (let i = 0; i < 42; i++) {
      await app.compose(sourceId, { status: 503 });
      clock.advance(1_000);
    }
    // 10:00:00 .. 10:00:41: the first five are sent, 37 are folded into a summary due at 10:01:00.
    await app.worker.runDue();
    expect(receiver.requests.map((r) => r.json<Payload>().event)).toEqual([
      'traffic',
      'traffic',
      'traffic',
      'traffic',
      'traffic',
    ]);
    clock.set('2026-11-21T10:00:59.999Z');
    await app.worker.runDue();
    expect(receiver.requests).toHaveLength(5);
    clock.set('2026-11-21T10:01:00.000Z');
    await app.worker.runDue();
    expect(receiver.requests).toHaveLength(6);
    const summary = receiver.requests[5]!.json<Payload>();
    expect(summary).toMatchObject({
      event: 'summary',
      webhookId: webhook.id,
      summary: { count: 37, pathnames: { '/api/orders': 37 } },
    });
    expect(summary.summary!.text).toBe('37 more FATAL entries on /api/orders in the last minute');

    // The storm goes on: the summary was the next minute's first message, so 4 more fit in it.
    for (let i = 0; i < 10; i++)
      await app.compose(sourceId, { status: 503, pathnameUrl: i % 2 ? '/api/cart' : '/api/orders' });
    await app.worker.runDue();
    expect(receiver.requests).toHaveLength(10);
    clock.set('2026-11-21T10:02:00.000Z');
    await app.worker.runDue();
    expect(receiver.requests[10]!.json<Payload>().summary!.text).toBe(
      '6 more FATAL entries in the last minute: 3 on /api/cart, 3 on /api/orders',
    );
  });

  it('counts retries of one message once in the storm limit', async () => {
    receiver.answer({ status: 500 }, { status: 204 });
    await addWebhook();
    for (let i = 0; i < 5; i++) await app.compose(sourceId, { status: 503 });
    await app.worker.runDue();
    clock.advance(2_000);
    await app.worker.runDue();
    expect(receiver.requests).toHaveLength(6);
    expect(receiver.requests.every((r) => r.json<Payload>().event === 'traffic')).toBe(true);
  });

  it('cancels queued deliveries and scheduled retries when the webhook is deleted', async () => {
    receiver.answer({ status: 500 });
    const doomed = await addWebhook();
    const kept = await addWebhook('warning');
    await app.compose(sourceId, { status: 503 });
    await app.worker.runDue();
    expect(receiver.requests).toHaveLength(1);
    await app.compose(sourceId, { status: 502 });
    await app.compose(sourceId, { status: 404 });

    await app.client.call(contract.deleteWebhook, { params: { webhookId: doomed.id } });
    const seenAtDelete = receiver.requests.length;
    clock.advance(60 * 60_000);
    receiver.answer({ status: 204 });
    await app.worker.runDue();
    const after = receiver.requests.slice(seenAtDelete);
    expect(after.map((r) => r.json<{ webhookId: string }>().webhookId)).toEqual([kept.id]);
    expect(
      await app.db.selectFrom('webhook_deliveries').select('id').where('webhook_id', '=', doomed.id).execute(),
    ).toEqual([]);
    expect(await pending()).toBe(0);
  });

  it('aborts a send in flight when the webhook is deleted, and records nothing for it', async () => {
    receiver.answer({ status: 200, hang: true });
    const webhook = await addWebhook();
    await app.compose(sourceId, { status: 503 });
    const run = app.worker.runDue();
    await receiver.waitFor(1);
    await app.client.call(contract.deleteWebhook, { params: { webhookId: webhook.id } });
    await run;
    // The sender closed the connection; the receiver notices a moment later.
    await vi.waitFor(() => expect(receiver.aborted).toBe(1));
    expect(await app.db.selectFrom('webhook_attempts').select('id').execute()).toEqual([]);
    clock.advance(60 * 60_000);
    await app.worker.runDue();
    expect(receiver.requests).toHaveLength(1);
  });

  // Daemons on one database share the outbox (docs/decisions.md §8.13). A claim made here through
  // the repository stands for another daemon's, on the same database.
  it('sends a message claimed by a daemon that died once its lease ran out, once, under the same delivery id', async () => {
    await addWebhook();
    await app.compose(sourceId, { status: 503 });
    const [claimed] = await claimDue(app.store, clock.now(), 10);
    expect(claimed).toMatchObject({ status: 'sending', kind: 'traffic' });

    expect(await app.worker.runDue()).toBe(0);
    clock.advance(LEASE_MS - 1);
    expect(await app.worker.runDue()).toBe(0);
    clock.advance(1);
    expect(await app.worker.runDue()).toBe(1);
    expect(receiver.requests.map((r) => r.headers['x-tapline-delivery'])).toEqual([claimed!.id]);
    clock.advance(60 * 60_000);
    expect(await app.worker.runDue()).toBe(0);
    expect(receiver.requests).toHaveLength(1);
  });

  it('keeps one message of a webhook in flight at a time, so its messages go out in order, whoever sends them', async () => {
    await addWebhook();
    for (let i = 0; i < 3; i++) await app.compose(sourceId, { status: 503, pathnameUrl: `/api/${i}` });
    const first = await claimDue(app.store, clock.now(), 10);
    expect(first.map((d) => (JSON.parse(d.payload) as { pathname: string }).pathname)).toEqual(['/api/0']);
    // Another daemon asking now gets nothing of this webhook: its first message is in flight.
    expect(await claimDue(app.store, clock.now(), 10)).toEqual([]);
    clock.advance(LEASE_MS);
    await app.worker.runDue();
    expect(receiver.requests.map((r) => r.json<{ entry: { pathname: string } }>().entry.pathname)).toEqual([
      '/api/0',
      '/api/1',
      '/api/2',
    ]);
  });
});
