import { type AlertPayload, type AlertRule, contract, createClient, type TaplineClient } from '@tapline/shared';
import { composeBody, until } from '@tapline/testkit';
import { type FreshDatabase, freshDatabase, type Receiver, startReceiver } from '@tapline/testkit/daemon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminOn, type Member, startMember } from './support/cluster.js';

/**
 * Two built daemons on one PostgreSQL database evaluate the same rule every second: one firing
 * and one resolved message in all, also when one daemon is SIGKILLed between them (the survivor
 * takes its claims over once their lease ends). docs/decisions.md §23.3.
 */
describe('alert rules with two daemons on one PostgreSQL (built taplined)', () => {
  let database: FreshDatabase;
  let a: Member;
  let b: Member;
  let hook: Receiver;

  beforeAll(async () => {
    database = await freshDatabase();
    [a, b] = await Promise.all([
      startMember(database.locator, ['--alert-interval', '1s']),
      startMember(database.locator, ['--alert-interval', '1s']),
    ]);
    hook = await startReceiver('/alerts');
  }, 90_000);
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await hook?.close();
    await database?.drop();
  });

  /**
   * One per message: a daemon SIGKILLed after its POST but before recording it leaves the message
   * to be sent again when its lease ends, with the same X-Tapline-Delivery (docs/webhooks.md, "at
   * least once"); a transition notified twice would have two delivery ids.
   */
  const alerts = () => {
    const byDelivery = new Map<string, AlertPayload>();
    for (const r of hook.requests) {
      const body = r.json<{ event: string; alert: AlertPayload }>();
      if (body.event === 'alert') byDelivery.set(String(r.headers['x-tapline-delivery']), body.alert);
    }
    return [...byDelivery.values()];
  };

  it('sends one firing and one resolved message, with the daemon that fired SIGKILLed in between', async () => {
    await adminOn(database.locator, ['user', 'add', 'ops@example.com']);
    const token = await adminOn(database.locator, ['token', 'create', 'ops@example.com']);
    const via = (m: Member): TaplineClient => createClient({ baseUrl: m.url, token });
    const sourceId = (
      await via(a).call(contract.createTrafficSource, { body: { name: 'shop', trafficDomain: 'shop.example.com' } })
    ).id;
    const webhook = await via(a).call(contract.createWebhook, {
      params: { trafficSourceId: sourceId },
      body: { type: 'http', level: 'fatal', value: hook.url },
    });
    await via(b).call(contract.createAlertRule, {
      params: { trafficSourceId: sourceId },
      body: { when: 'p95 > 300ms', route: '/checkout', window: '1m', minRequests: 5, webhookIds: [webhook.id] },
    });
    const post = (on: Member, n: number, ms: number) =>
      via(on).call(contract.composeBatch, {
        params: { trafficSourceId: sourceId },
        body: Array.from({ length: n }, () =>
          composeBody(sourceId, { pathnameUrl: '/checkout', elapsedTime: ms, startedAt: new Date().toISOString() }),
        ),
      });

    await post(a, 10, 900);
    await until(() => alerts().length >= 1, 'the firing message', 30_000);
    await a.kill();
    await post(b, 300, 20);
    await until(() => alerts().length >= 2, 'the resolved message', 150_000);
    const rule = async (): Promise<AlertRule | undefined> =>
      (await via(b).call(contract.listAlertRules, { params: { trafficSourceId: sourceId } })).data[0];
    const resolvedAt = Date.parse((await rule())?.stateSince ?? '');
    await until(
      async () => Date.parse((await rule())?.evaluatedAt ?? '') > resolvedAt + 3_000,
      'three more evaluations',
      20_000,
    );
    expect(alerts().map((m) => m.state)).toEqual(['firing', 'resolved']);
    const history = await via(b).call(contract.listAlertHistory, { params: { trafficSourceId: sourceId } });
    expect(history.data.map((e) => `${e.from}>${e.to}`).reverse()).toEqual(['ok>firing', 'firing>resolved']);
  }, 240_000);
});
