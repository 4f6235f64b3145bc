import { ComposeRecord, type TrafficSource } from '@tapline/shared';
import { composeBody, holdPoint } from '@tapline/testkit';
import { openTestDatabase } from '@tapline/testkit/daemon';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createUser } from '../auth/users.js';
import { systemClock } from '../clock.js';
import type { OpenedDatabase } from '../db/open.js';
import { createOutageLog } from '../db/unavailable.js';
import { OVERLAP_RECORDS } from '../ingest/ingest.js';
import { ingestOn } from '../ingest/ingest.fixture.js';
import { prepareRecord } from '../ingest/prepare.js';
import { createRedactor } from '../ingest/redact.js';
import { createLogger } from '../logger.js';
import { createTrafficBus } from '../stream/bus.js';
import { createTrafficSource } from '../traffic-sources/repo.js';
import { createWebhook } from './repo.js';
import { createWebhookWorker } from './worker.js';

/**
 * Each committed group that queued a message tells the other daemons (and wakes this one), also
 * when two groups are in flight at once (large batches on PostgreSQL, docs/decisions.md §20.42):
 * one flag for the daemon was cleared by the first to commit, and the second's messages waited.
 */
let opened: OpenedDatabase;
let sources: TrafficSource[];
beforeEach(async () => {
  opened = await openTestDatabase();
  const user = await createUser(opened.db, systemClock, { email: 'a@example.com' });
  sources = [];
  for (const name of ['a', 'b']) {
    const source = await createTrafficSource(opened.db, systemClock, user.id, {
      name,
      trafficDomain: 'shop.example.com',
    });
    await createWebhook(opened.db, systemClock, source.id, {
      type: 'http',
      level: 'fatal',
      value: 'http://127.0.0.1:9/',
    });
    sources.push(source);
  }
});
afterEach(() => opened.close());

const redactor = createRedactor({ enabled: true, extraKeys: [] });
const failuresOf = (source: TrafficSource, prefix: string) =>
  Array.from(
    { length: OVERLAP_RECORDS },
    (_, i) =>
      prepareRecord(
        ComposeRecord.parse(composeBody(source.id, { pathnameUrl: `${prefix}/${i}`, status: 503 })),
        redactor,
      ).record,
  );

it('tells of the messages of each group that queued some, when two groups of large batches are in flight', async () => {
  const [a, b] = sources as [TrafficSource, TrafficSource];
  const logger = createLogger('silent');
  const bus = createTrafficBus();
  const notified: string[] = [];
  const worker = createWebhookWorker({
    db: opened.db,
    dialect: opened.dialect,
    clock: systemClock,
    logger,
    outages: createOutageLog(logger),
    config: { allowPrivateWebhooks: true, version: 'test' },
    bus,
    signals: { notify: (channel) => void notified.push(channel), listen: () => () => undefined, close: async () => {} },
  });
  // The first group, its message queued, waits until the second has queued its own: both are in
  // flight, and the first commits first.
  const first = holdPoint();
  const ingest = ingestOn(opened, {
    bus,
    hooks: [
      worker.hook,
      async (_trx, entries) => {
        const batch = entries[0]?.pathname.split('/')[1];
        if (batch === 'two') first.release();
        // Held until the second group has queued its message, or 20 s (then the test fails on the count).
        if (batch === 'one') await Promise.race([first.wait(), new Promise((resolve) => setTimeout(resolve, 20_000))]);
      },
    ],
  });
  // Each source's domain made first, by a group of its own, which queues a message of its own.
  await ingest.store(a, failuresOf(a, '/warm').slice(0, 1));
  await ingest.store(b, failuresOf(b, '/warm').slice(0, 1));
  notified.length = 0;
  const one = ingest.store(a, failuresOf(a, '/one'));
  await first.reached;
  const two = ingest.store(b, failuresOf(b, '/two'));
  await Promise.all([one, two]);
  expect(notified).toEqual(['outbox', 'outbox']);
  await worker.stop();
});
