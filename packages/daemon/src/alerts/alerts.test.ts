import { createHmac } from 'node:crypto';
import { type AlertPayload, contract, type CreateAlertRule } from '@tapline/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  composeBody,
  expectError,
  manualClock,
  type Receiver,
  startReceiver,
  startWebhookApp,
  type WebhookApp,
} from '@tapline/testkit/daemon';

const START = '2026-11-21T10:00:00.000Z';
const MINUTE = 60_000;

/**
 * Alert rules evaluated with an injected clock: each pass is `alerts.runDue()` at the clock's
 * now, each delivery `worker.runDue()`; nothing sleeps.
 */
describe('alert rules on the route numbers (issue 27)', () => {
  const clock = manualClock(START);
  let app: WebhookApp;
  let receiver: Receiver;
  let sourceId: string;
  let webhook: { id: string; secret?: string | undefined };

  beforeEach(async () => {
    clock.set(START);
    app = await startWebhookApp({ clock });
    sourceId = await app.source();
    receiver = await startReceiver('/alerts');
    webhook = await app.client.call(contract.createWebhook, {
      params: { trafficSourceId: sourceId },
      body: { type: 'http', level: 'fatal', value: receiver.url },
    });
  });
  afterEach(async () => {
    await app.close();
    await receiver.close();
  });

  const addRule = (body: Omit<CreateAlertRule, 'webhookIds'> & { webhookIds?: string[] }) =>
    app.client.call(contract.createAlertRule, {
      params: { trafficSourceId: sourceId },
      body: { webhookIds: [webhook.id], ...body },
    });
  /** `n` requests at the clock's now on POST /checkout, each taking `ms`. */
  const traffic = (n: number, ms: number, extra: Record<string, unknown> = {}) =>
    app.client.call(contract.composeBatch, {
      params: { trafficSourceId: sourceId },
      body: Array.from({ length: n }, () =>
        composeBody(sourceId, {
          pathnameUrl: '/checkout',
          method: 'POST',
          elapsedTime: ms,
          startedAt: clock.now().toISOString(),
          ...extra,
        }),
      ),
    });
  /** One evaluation pass, then the outbox; answers the alert messages received so far. */
  async function tick(advanceMs = 30_000) {
    clock.advance(advanceMs);
    await app.alerts.runDue();
    await app.worker.runDue();
    return receiver.requests
      .map((r) => r.json<{ event: string; alert: AlertPayload }>())
      .filter((b) => b.event === 'alert');
  }
  const rules = async () =>
    (await app.client.call(contract.listAlertRules, { params: { trafficSourceId: sourceId } })).data;
  const history = async () =>
    (await app.client.call(contract.listAlertHistory, { params: { trafficSourceId: sourceId } })).data;

  it('goes ok → pending → firing → resolved with --for and a whole clear window, one message per transition', async () => {
    const rule = await addRule({
      when: 'p95 > 800ms',
      route: '/checkout',
      method: 'POST',
      for: '2m',
      window: '5m',
      minRequests: 5,
    });
    await traffic(10, 1200);
    expect(await tick(1_000)).toHaveLength(0);
    expect((await rules())[0]).toMatchObject({ id: rule.id, state: 'pending', lastRequests: 10 });
    expect(await tick()).toHaveLength(0);
    // --for (2m) has not passed since pending began: still pending.
    expect(await tick(MINUTE)).toHaveLength(0);
    expect((await rules())[0]?.state).toBe('pending');
    const fired = await tick(MINUTE);
    expect(fired.map((m) => m.alert.state)).toEqual(['firing']);
    expect(fired[0]?.alert).toMatchObject({
      ruleId: rule.id,
      rule: 'p95 > 800ms',
      metric: 'p95',
      threshold: 800,
      route: '/checkout',
      method: 'POST',
      requests: 10,
      test: false,
    });
    expect(fired[0]?.alert.value).toBeGreaterThan(1180);
    expect(fired[0]?.alert.command).toContain(`tapline stats ${sourceId} --since`);

    // Still slow: no second message while it stays firing.
    await traffic(10, 1200);
    expect(await tick()).toHaveLength(1);

    // Fast again (20 slow of 420: p95 is fast): false, but not for a whole window (5m) yet.
    await traffic(400, 10);
    expect(await tick()).toHaveLength(1);
    expect(await tick(2 * MINUTE)).toHaveLength(1);
    // True once more (flapping) restarts the clear count...
    await traffic(100, 1500);
    expect(await tick()).toHaveLength(1);
    expect(await tick(MINUTE)).toHaveLength(1);
    // ...and once the slow minutes have left the window, false for a whole window resolves it.
    clock.advance(5 * MINUTE);
    await traffic(50, 10);
    expect(await tick(0)).toHaveLength(1);
    expect(await tick(4 * MINUTE)).toHaveLength(1);
    expect((await rules())[0]?.state).toBe('firing');
    const resolved = await tick(MINUTE);
    expect(resolved.map((m) => m.alert.state)).toEqual(['firing', 'resolved']);
    expect(resolved[1]?.alert.since).toBe(fired[0]?.alert.since);
    expect(await tick()).toHaveLength(2);

    expect((await history()).map((e) => `${e.from}>${e.to}:${e.notified}`).reverse()).toEqual([
      'ok>pending:0',
      'pending>firing:1',
      'firing>resolved:1',
    ]);
    const [firing] = (await history()).filter((e) => e.to === 'firing');
    expect(firing).toMatchObject({ threshold: 800, requests: 10, when: 'p95 > 800ms' });

    // Signed as every http webhook message is.
    const first = receiver.requests.find((r) => r.json<{ event: string }>().event === 'alert');
    expect(first?.headers['x-tapline-signature']).toBe(
      `sha256=${createHmac('sha256', webhook.secret ?? '')
        .update(first?.body ?? '')
        .digest('hex')}`,
    );
  });

  it('does not fire on a window with fewer requests than --min-requests', async () => {
    await addRule({ when: 'p99 > 100ms', minRequests: 20 });
    await traffic(3, 5000);
    expect(await tick()).toHaveLength(0);
    expect((await rules())[0]).toMatchObject({ state: 'ok', lastRequests: 3 });
    await traffic(17, 5000);
    expect((await tick()).map((m) => m.alert.state)).toEqual(['firing']);
  });

  it('fires at once without --for, and on error rates and stopped traffic', async () => {
    await addRule({ when: 'error_rate > 5%', route: '/checkout', minRequests: 10 });
    await addRule({ when: 'requests < 10/min', window: '10m' });
    await traffic(140, 10);
    await traffic(10, 10, { status: 503 });
    const fired = await tick(1_000);
    expect(fired.map((m) => [m.alert.metric, m.alert.state])).toEqual([['error_rate', 'firing']]);
    expect(fired[0]?.alert.value).toBeCloseTo(10 / 150, 5);
    // 150 requests over the 10 minutes covered were 15/min; eleven quiet minutes later, none.
    const quiet = await tick(11 * MINUTE);
    expect(quiet.map((m) => [m.alert.metric, m.alert.state])).toContainEqual(['requests', 'firing']);
  });

  it('compares with the median of the same window on the previous 7 days (the baseline)', async () => {
    const day = 86_400_000;
    const now = Date.parse(START);
    // Seven previous days at this time: p95 around 100 ms (one day an outlier of 900 ms).
    for (let k = 1; k <= 7; k++) {
      clock.set(new Date(now - k * day - 2 * MINUTE).toISOString());
      await traffic(30, k === 3 ? 900 : 100);
    }
    clock.set(START);
    const rule = await addRule({ when: 'p95 > 2x baseline', window: '5m', minRequests: 10 });
    expect(rule).toMatchObject({ baselineDays: 7, threshold: 2 });
    await traffic(30, 150);
    expect(await tick(1_000)).toHaveLength(0);
    await traffic(60, 350);
    const fired = await tick();
    expect(fired).toHaveLength(1);
    const baseline = fired[0]?.alert.baseline;
    expect(baseline?.days).toHaveLength(7);
    expect(baseline?.days.every((d) => d.requests === 30)).toBe(true);
    // The median of six days at ~100 and one at ~900 is ~100: the outlier does not move it.
    expect(baseline?.median).toBeGreaterThan(98);
    expect(baseline?.median).toBeLessThan(102);
    expect(fired[0]?.alert.threshold).toBeCloseTo((baseline?.median ?? 0) * 2, 5);
  });

  it('keeps a rule whose webhook was deleted, listed with no target, and sends nothing', async () => {
    const rule = await addRule({ when: 'p50 > 10ms', minRequests: 1 });
    await app.client.call(contract.deleteWebhook, { params: { webhookId: webhook.id } });
    expect((await rules())[0]).toMatchObject({ id: rule.id, webhookIds: [] });
    await traffic(5, 500);
    expect(await tick()).toHaveLength(0);
    expect((await rules())[0]?.state).toBe('firing');
    expect((await history())[0]).toMatchObject({ to: 'firing', notified: 0 });
  });

  it('sends a reminder every --repeat while firing, and a test message on demand', async () => {
    const rule = await addRule({ when: 'p50 > 10ms', minRequests: 1, repeat: '1h' });
    await traffic(5, 500);
    expect(await tick()).toHaveLength(1);
    clock.advance(30 * MINUTE);
    await traffic(5, 500);
    expect(await tick(0)).toHaveLength(1);
    clock.advance(31 * MINUTE);
    await traffic(5, 500);
    const reminded = await tick(0);
    expect(reminded.map((m) => [m.alert.state, m.alert.reminder])).toEqual([
      ['firing', false],
      ['firing', true],
    ]);
    expect((await app.client.call(contract.testAlertRule, { params: { ruleId: rule.id } })).webhookIds).toEqual([
      webhook.id,
    ]);
    await app.worker.runDue();
    expect(receiver.requests.at(-1)?.json<{ alert: AlertPayload }>().alert).toMatchObject({
      test: true,
      state: 'firing',
      ruleId: rule.id,
    });
  });

  it('refuses a condition, span or webhook it cannot take, and creates nothing', async () => {
    const body = (extra: Partial<CreateAlertRule>) => ({ webhookIds: [webhook.id], when: 'p95 > 800ms', ...extra });
    const create = (extra: Partial<CreateAlertRule>) =>
      app.client.call(contract.createAlertRule, { params: { trafficSourceId: sourceId }, body: body(extra) });
    const refused = async (extra: Partial<CreateAlertRule>, status: number, said: RegExp) =>
      expect((await expectError(create(extra), status)).body.error).toMatch(said);
    await refused(
      { when: 'p96 > 800ms' },
      400,
      /unknown metric "p96": use one of p50, p90, p95, p99, error_rate, client_error_rate, requests \(column 1\)/,
    );
    await refused({ when: 'p95 > 800 parsecs' }, 400, /unknown unit "parsecs" for p95: use one of ms, s/);
    await refused({ when: 'p95 ~ 800ms' }, 400, /unknown operator "~"/);
    await refused({ when: 'p95 > -5ms' }, 400, /cannot be negative/);
    await refused({ when: 'error_rate > 120%' }, 400, /share from 0% to 100%/);
    await refused({ for: '30s' }, 400, /for must be a duration from 1m to 24h/);
    await refused({ window: '25h' }, 400, /window must be a duration from 1m to 24h/);
    const other = await app.source('other');
    const foreign = await app.client.call(contract.createWebhook, {
      params: { trafficSourceId: other },
      body: { type: 'http', level: 'fatal', value: receiver.url },
    });
    await refused({ webhookIds: [webhook.id, foreign.id] }, 404, /belongs to another traffic source/);
    const stranger = await app.stranger();
    const theirs = await stranger.call(contract.createWebhook, {
      params: {
        trafficSourceId: await stranger
          .call(contract.createTrafficSource, { body: { name: 'x', trafficDomain: 'x.example.com' } })
          .then((s) => s.id),
      },
      body: { type: 'http', level: 'fatal', value: receiver.url },
    });
    await refused({ webhookIds: [theirs.id] }, 403, /Forbidden/);
    expect(await rules()).toEqual([]);
  });
});
