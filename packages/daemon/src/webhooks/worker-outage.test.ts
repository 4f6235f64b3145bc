import { contract } from '@tapline/shared';
import { until } from '@tapline/testkit';
import {
  adminShutdown,
  databaseOutage,
  manualClock,
  type Receiver,
  startReceiver,
  startWebhookApp,
  type WebhookApp,
} from '@tapline/testkit/daemon';
import { afterEach, describe, expect, it } from 'vitest';

describe('the webhook worker across a database outage', () => {
  let app: WebhookApp | undefined;
  let receiver: Receiver | undefined;
  afterEach(async () => {
    await app?.close();
    await receiver?.close();
  });

  it('tries again by itself after a pass the database failed, and delivers what was due, with nothing new queued', async () => {
    app = await startWebhookApp({ clock: manualClock('2026-11-21T10:00:00.000Z') });
    receiver = await startReceiver();
    const sourceId = await app.source();
    await app.client.call(contract.createWebhook, {
      params: { trafficSourceId: sourceId },
      body: { type: 'http', level: 'fatal', value: receiver.url },
    });
    await app.compose(sourceId, { status: 503 });
    const outage = databaseOutage(app.db);
    outage.fail(adminShutdown());
    app.worker.start();
    // The first pass fails while the database is down; then it comes back, and no signal says so.
    await until(() => outage.refused() > 0, "the worker's first pass to fail");
    outage.heal();
    await expect.poll(() => receiver?.requests.length, { timeout: 10_000 }).toBe(1);
  });
});
