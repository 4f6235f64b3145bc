import { type AlertPayload, contract } from '@tapline/shared';
import {
  composeBody,
  type FreshDatabase,
  freshDatabase,
  manualClock,
  type Receiver,
  startReceiver,
  startWebhookApp,
  type WebhookApp,
} from '@tapline/testkit/daemon';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimDue, commitOutcome, LEASE_MS } from './lease.js';

const START = '2026-11-21T10:00:00.000Z';

/**
 * Two daemons (two apps, two pools) on one PostgreSQL database evaluate the same rules with the
 * same injected time: each transition is written and notified once (docs/decisions.md §23.3).
 */
describe('alert evaluation with several daemons on one PostgreSQL', () => {
  const clock = manualClock(START);
  let database: FreshDatabase;
  let a: WebhookApp;
  let b: WebhookApp;
  let receiver: Receiver;
  let sourceId: string;

  beforeEach(async () => {
    clock.set(START);
    database = await freshDatabase({ migrated: true });
    a = await startWebhookApp({ clock, database: database.locator, owner: 'daemon-a' });
    b = await startWebhookApp({ clock, database: database.locator, owner: 'daemon-b' });
    receiver = await startReceiver('/alerts');
    sourceId = await a.source();
    const webhook = await a.client.call(contract.createWebhook, {
      params: { trafficSourceId: sourceId },
      body: { type: 'http', level: 'fatal', value: receiver.url },
    });
    await a.client.call(contract.createAlertRule, {
      params: { trafficSourceId: sourceId },
      body: { when: 'p95 > 300ms', window: '1m', minRequests: 5, webhookIds: [webhook.id] },
    });
  });
  afterEach(async () => {
    await Promise.all([a.close(), b.close()]);
    await receiver.close();
    await database.drop();
  });

  const traffic = (n: number, ms: number) =>
    a.client.call(contract.composeBatch, {
      params: { trafficSourceId: sourceId },
      body: Array.from({ length: n }, () =>
        composeBody(sourceId, { elapsedTime: ms, startedAt: clock.now().toISOString() }),
      ),
    });
  /** Both daemons evaluate at once, then both deliver at once. */
  async function both(advanceMs: number) {
    clock.advance(advanceMs);
    await Promise.all([a.alerts.runDue(), b.alerts.runDue(), a.alerts.runDue(), b.alerts.runDue()]);
    await Promise.all([a.worker.runDue(), b.worker.runDue()]);
  }
  const states = () => receiver.requests.map((r) => r.json<{ alert: AlertPayload }>().alert.state);

  it('fires and resolves once, however many passes race', async () => {
    await traffic(10, 900);
    for (let i = 0; i < 4; i++) await both(10_000);
    expect(states()).toEqual(['firing']);
    await traffic(200, 5);
    clock.advance(60_000);
    await traffic(50, 5);
    for (let i = 0; i < 12; i++) await both(10_000);
    expect(states()).toEqual(['firing', 'resolved']);
    expect(
      (await a.client.call(contract.listAlertHistory, { params: { trafficSourceId: sourceId } })).data
        .map((e) => e.to)
        .reverse(),
    ).toEqual(['firing', 'resolved']);
  });

  it('takes over from a daemon that died holding the claim once its lease ends, and a late holder writes nothing', async () => {
    await traffic(10, 900);
    clock.advance(1_000);
    // Daemon a claims the rule and dies before writing anything.
    const [held] = await claimDue(a.store, 'daemon-a', clock.now(), 10);
    if (!held) throw new Error('daemon a claimed nothing');
    await both(0);
    expect(await b.alerts.runDue()).toBe(0);
    expect(states()).toEqual([]);
    clock.advance(LEASE_MS);
    expect(await b.alerts.runDue()).toBe(1);
    await b.worker.runDue();
    expect(states()).toEqual(['firing']);
    // The dead daemon's claim, were it to wake up now, is no longer its own: nothing is written.
    const stale = {
      patch: {
        state: 'ok' as const,
        state_since: START,
        firing_since: null,
        clear_since: null,
        notified_at: null,
        last_value: null,
        last_requests: null,
        evaluated_at: START,
        next_eval_at: START,
      },
      event: null,
      messages: [],
    };
    expect(await commitOutcome(a.db, held, stale, START)).toBe(false);
    expect(
      (await a.client.call(contract.listAlertRules, { params: { trafficSourceId: sourceId } })).data[0]?.state,
    ).toBe('firing');
  });
});
