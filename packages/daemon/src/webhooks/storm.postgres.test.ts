import { ComposeRecord, type TrafficSource } from '@tapline/shared';
import { composeBody, holdPoint } from '@tapline/testkit';
import { type FreshDatabase, freshDatabase } from '@tapline/testkit/daemon';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createUser } from '../auth/users.js';
import { systemClock } from '../clock.js';
import { openDatabase, type OpenedDatabase } from '../db/open.js';
import { createTrafficBus } from '../stream/bus.js';
import { createIngest, type Ingest } from '../ingest/ingest.js';
import { prepareRecord } from '../ingest/prepare.js';
import { createRedactor } from '../ingest/redact.js';
import { createTrafficSource } from '../traffic-sources/repo.js';
import { enqueueNotifications, MESSAGES_PER_WINDOW } from './outbox.js';
import { createWebhook } from './repo.js';

/**
 * Two daemons (two pools on one PostgreSQL database) store a storm for one webhook at once:
 * storm control counts their entries together (docs/decisions.md §8.7, §8.13).
 */
describe('storm control across daemons', () => {
  let database: FreshDatabase;
  let daemons: OpenedDatabase[] = [];
  let source: TrafficSource;
  const redactor = createRedactor({ enabled: true, extraKeys: [] });
  const record = (status: number, path: string) =>
    prepareRecord(ComposeRecord.parse(composeBody(source.id, { status, pathnameUrl: path })), redactor).record;

  beforeEach(async () => {
    database = await freshDatabase({ migrated: true });
    daemons = [openDatabase(database.locator, { pool: 4 }), openDatabase(database.locator, { pool: 4 })];
    const user = await createUser(daemons[0]!.db, systemClock, { email: 'a@example.com' });
    source = await createTrafficSource(daemons[0]!.db, systemClock, user.id, {
      name: 's',
      trafficDomain: 'shop.example.com',
    });
    await createWebhook(daemons[0]!.db, systemClock, source.id, {
      type: 'http',
      level: 'fatal',
      value: 'http://127.0.0.1:9/hook',
    });
  });
  afterEach(async () => {
    await Promise.all(daemons.map((d) => d.close()));
    await database.drop();
  });

  it('sends at most five messages a minute for a webhook and folds the rest, whichever daemon stored them', async () => {
    const hold = holdPoint();
    const [first, second] = daemons.map(({ db, dialect }, d) =>
      createIngest({
        db,
        dialect,
        clock: systemClock,
        bus: createTrafficBus(),
        hooks: [
          async (trx, entries) => void (await enqueueNotifications(trx, dialect, entries)),
          // The first daemon's transaction stays open after queueing, until the second has tried.
          () => (d > 0 ? Promise.resolve() : hold.wait()),
        ],
      }),
    ) as [Ingest, Ingest];
    // The storm's first message opens the window, and its domain exists before the rest arrive.
    await second.store(source, [record(503, '/first')]);
    const batch = (d: number) => Array.from({ length: 10 }, (_, i) => record(503, `/api/${d}/${i}`));
    const stored = first.store(source, batch(0));
    await hold.reached;
    const alsoStored = second.store(source, batch(1));
    // The second daemon's transaction goes as far as it can: until it waits for a row the first holds.
    await vi.waitFor(async () =>
      expect(
        (
          await sql<{ waiting: number }>`select count(*)::int as waiting from pg_locks where not granted`.execute(
            daemons[0]!.db,
          )
        ).rows[0]?.waiting,
      ).toBeGreaterThan(0),
    );
    hold.release();
    await Promise.all([stored, alsoStored]);

    const rows = await daemons[0]!.db.selectFrom('webhook_deliveries').select(['kind', 'payload']).execute();
    expect(rows.filter((r) => r.kind === 'traffic')).toHaveLength(MESSAGES_PER_WINDOW);
    const summaries = rows.filter((r) => r.kind === 'summary');
    expect(summaries).toHaveLength(1);
    expect(JSON.parse(summaries[0]!.payload)).toMatchObject({ count: 21 - MESSAGES_PER_WINDOW });
  });
});
