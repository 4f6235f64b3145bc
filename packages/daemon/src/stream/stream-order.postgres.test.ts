import { ComposeRecord, type TrafficSource } from '@tapline/shared';
import { composeBody, holdPoint } from '@tapline/testkit';
import { type FreshDatabase, freshDatabase } from '@tapline/testkit/daemon';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createUser } from '../auth/users.js';
import { systemClock } from '../clock.js';
import { openDatabase, type OpenedDatabase } from '../db/open.js';
import { postgresSignals } from '../db/pg-signals.js';
import type { ClusterSignals } from '../db/signals.js';
import { createTrafficSource } from '../traffic-sources/repo.js';
import { createTrafficBus } from './bus.js';
import { createIngest } from '../ingest/ingest.js';
import { prepareRecord } from '../ingest/prepare.js';
import { createRedactor } from '../ingest/redact.js';
import { createStreamHub } from './stream-hub.js';
import { streamPointOf, trafficAfter } from './stream-repo.js';
import { createOutageLog } from '../db/unavailable.js';

/**
 * Two daemons (two pools on one PostgreSQL database) whose entries commit out of id order: the
 * stream of a third follows commit order and skips none (docs/decisions.md §9.7).
 */
describe('the stream across daemons that commit out of id order', () => {
  let database: FreshDatabase;
  const opened: OpenedDatabase[] = [];
  let signals: ClusterSignals;
  let source: TrafficSource;
  const logger = pino({ level: 'silent' });
  const redactor = createRedactor({ enabled: true, extraKeys: [] });
  const record = (path: string) =>
    prepareRecord(ComposeRecord.parse(composeBody(source.id, { pathnameUrl: path })), redactor).record;

  beforeEach(async () => {
    database = await freshDatabase({ migrated: true });
    for (let i = 0; i < 3; i++) opened.push(openDatabase(database.locator, { pool: 2 }));
    const user = await createUser(opened[0]!.db, systemClock, { email: 'a@example.com' });
    source = await createTrafficSource(opened[0]!.db, systemClock, user.id, {
      name: 's',
      trafficDomain: 'shop.example.com',
    });
  });
  afterEach(async () => {
    await signals?.close();
    await Promise.all(opened.splice(0).map((o) => o.close()));
    await database.drop();
  });

  it('streams an entry that committed after a later id, once, after it; a cursor taken between resumes to it', async () => {
    const hold = holdPoint();
    const [first, second, reader] = opened.map((o) => o.db) as [
      OpenedDatabase['db'],
      OpenedDatabase['db'],
      OpenedDatabase['db'],
    ];
    const dialect = opened[2]!.dialect;
    const slow = createIngest({
      db: first,
      dialect,
      clock: systemClock,
      bus: createTrafficBus(),
      hooks: [() => hold.wait()],
    });
    const fast = createIngest({ db: second, dialect, clock: systemClock, bus: createTrafficBus(), hooks: [] });

    // The domain exists before the race: a new one would make the second writer wait for the first.
    await fast.store(source, [record('/warm')]);
    signals = postgresSignals(database.locator, logger);
    // A poll far longer than the test: the NOTIFY of a real daemon's ingest has to wake the reader.
    const hub = createStreamHub({
      db: reader,
      dialect,
      bus: createTrafficBus(),
      signals,
      logger,
      outages: createOutageLog(logger),
      pollMs: 60_000,
    });
    const seen: string[] = [];
    hub.subscribe(source.id, (committed) => seen.push(...committed.map((c) => c.entry.id)));
    await hub.ready();
    const notifier = postgresSignals(database.locator, logger);

    const late = slow.store(source, [record('/late')]);
    await hold.reached;
    const [early] = await fast.store(source, [record('/early')]);
    notifier.notify('traffic');
    await vi.waitFor(() => expect(seen).toEqual([early!.id]));
    const cursor = await streamPointOf(reader, source.id, early!.id);

    hold.release();
    const [lateEntry] = await late;
    notifier.notify('traffic');
    await vi.waitFor(() => expect(seen).toEqual([early!.id, lateEntry!.id]));
    // The scenario is the one that breaks an id cursor: the late entry has the smaller id.
    expect(lateEntry!.id < early!.id).toBe(true);
    // A client that had the early entry as its cursor gets the late one on reconnecting.
    expect((await trafficAfter({ db: reader, dialect }, source.id, {}, cursor, 10)).map((c) => c.entry.id)).toEqual([
      lateEntry!.id,
    ]);
    await notifier.close();
  });
});
