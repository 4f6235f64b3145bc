import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { contract } from '@tapline/shared';
import { manualClock, openTestDatabase, startReceiver, startWebhookApp } from '@tapline/testkit/daemon';
import { type App, createApp } from './app.js';
import { defaultConfig } from './config.js';
import type { ClusterSignals, SignalChannel } from './db/signals.js';

/** Signals that note which channels are listened to: the webhook worker listens when it starts. */
function listenedSignals(): ClusterSignals & { readonly listened: SignalChannel[] } {
  const listened: SignalChannel[] = [];
  return {
    listened,
    notify: () => undefined,
    listen(channel) {
      listened.push(channel);
      return () => undefined;
    },
    close: () => Promise.resolve(),
  };
}

const turns = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("the app's background jobs", () => {
  const stops: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
  });

  async function app(jobsAfterMs?: number): Promise<{ app: App; signals: ReturnType<typeof listenedSignals> }> {
    const opened = await openTestDatabase();
    const signals = listenedSignals();
    const made = createApp({
      db: opened.db,
      dialect: opened.dialect,
      signals,
      config: defaultConfig('0.0.0-test'),
      logger: pino({ level: 'silent' }),
      ...(jobsAfterMs === undefined ? {} : { jobsAfterMs }),
    });
    stops.push(async () => {
      await made.stop();
      await opened.close();
    });
    return { app: made, signals };
  }

  it('start with the app when no delay is given', async () => {
    const { signals } = await app();
    expect(signals.listened).toEqual(['outbox', 'webhook_deleted']);
  });

  it('start `jobsAfterMs` after the app is made, not before', async () => {
    const { signals } = await app(200);
    await turns(50);
    expect(signals.listened).toEqual([]);
    await turns(300);
    expect(signals.listened).toEqual(['outbox', 'webhook_deleted']);
  });

  it('never start when the app stops before then', async () => {
    const { app: made, signals } = await app(100);
    await made.stop();
    await turns(250);
    expect(signals.listened).toEqual([]);
  });

  it('deliver, once they start, a message queued before then: nothing that arrives in the first moment is lost', async () => {
    const webhookApp = await startWebhookApp({ clock: manualClock('2026-11-21T10:00:00.000Z'), jobsAfterMs: 3_000 });
    const receiver = await startReceiver();
    stops.push(async () => {
      await webhookApp.close();
      await receiver.close();
    });
    const sourceId = await webhookApp.source();
    await webhookApp.client.call(contract.createWebhook, {
      params: { trafficSourceId: sourceId },
      body: { type: 'http', level: 'fatal', value: receiver.url },
    });
    await webhookApp.compose(sourceId, { status: 503 });
    // Queued and announced (the bus, the other daemons' signal) while the worker has not started.
    await turns(100);
    expect(receiver.requests).toHaveLength(0);
    await expect.poll(() => receiver.requests.length, { timeout: 8_000 }).toBe(1);
  });
});
