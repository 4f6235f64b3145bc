import { ComposeRecord, type TrafficSource } from '@tapline/shared';
import { composeBody } from '@tapline/testkit';
import { openTestDatabase } from '@tapline/testkit/daemon';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createUser } from '../auth/users.js';
import type { OpenedDatabase } from '../db/open.js';
import { systemClock } from '../clock.js';
import { createTrafficSource } from '../traffic-sources/repo.js';
import { createTrafficBus, type StoredEntry } from '../stream/bus.js';
import { createIngest, type Ingest } from './ingest.js';
import { prepareRecord } from './prepare.js';
import { createRedactor } from './redact.js';

const redactor = createRedactor({ enabled: true, extraKeys: [] });
/** A prepared compose of `path` for the source, as the routes hand it to the ingest. */
const recordAt = (sourceId: string, path: string) =>
  prepareRecord(ComposeRecord.parse(composeBody(sourceId, { pathnameUrl: path })), redactor).record;

describe('group commit', () => {
  let opened: OpenedDatabase;
  let queue: Ingest;
  let source: TrafficSource;
  let transactions: number;
  const published: StoredEntry[][] = [];

  beforeEach(async () => {
    opened = await openTestDatabase();
    const bus = createTrafficBus();
    bus.subscribe((committed) => published.push(committed.map((c) => c.entry)));
    transactions = 0;
    // A hook runs once per transaction, so it counts them.
    const countTransactions = async () => {
      transactions += 1;
    };
    queue = createIngest({
      db: opened.db,
      dialect: opened.dialect,
      clock: systemClock,
      bus,
      hooks: [countTransactions],
    });
    const user = await createUser(opened.db, systemClock, { email: 'a@example.com' });
    source = await createTrafficSource(opened.db, systemClock, user.id, {
      name: 's',
      trafficDomain: 'shop.example.com',
    });
    published.length = 0;
  });
  afterEach(() => opened.close());

  const record = (path: string) => recordAt(source.id, path);

  it('stores the composes of one event-loop turn in one transaction, each answered with its own records', async () => {
    const answers = await Promise.all([
      queue.store(source, [record('/a')]),
      queue.store(source, [record('/b'), record('/c')]),
      queue.store(source, [record('/d')]),
    ]);
    expect(answers.map((records) => records.map((r) => r.pathname))).toEqual([['/a'], ['/b', '/c'], ['/d']]);
    expect(transactions).toBe(1);
    expect(published.flat().map((e) => e.pathname)).toEqual(['/a', '/b', '/c', '/d']);
    const stored = await opened.db.selectFrom('http_traffic').select('id').execute();
    expect(stored).toHaveLength(4);
  });

  it('fails only the request whose records cannot be stored, not the others of its group', async () => {
    const gone: TrafficSource = { ...source, id: '01a1fc8d-93a2-767e-92f3-e5a71388f88b' };
    const [ok, failed, alsoOk] = await Promise.allSettled([
      queue.store(source, [record('/a')]),
      queue.store(gone, [prepareRecord(ComposeRecord.parse(composeBody(gone.id)), redactor).record]),
      queue.store(source, [record('/b')]),
    ]);
    expect(ok.status).toBe('fulfilled');
    expect(failed.status).toBe('rejected');
    expect(alsoOk.status).toBe('fulfilled');
    const stored = await opened.db.selectFrom('http_traffic').select('traffic_source_id').execute();
    expect(stored.map((r) => r.traffic_source_id)).toEqual([source.id, source.id]);
    // The failed group published nothing; the retried requests published their own entries once.
    expect(
      published
        .flat()
        .map((e) => e.pathname)
        .sort(),
    ).toEqual(['/a', '/b']);
  });

  it('groups across event-loop turns separately', async () => {
    await queue.store(source, [record('/a')]);
    await queue.store(source, [record('/b')]);
    expect(transactions).toBe(2);
  });

  it('queues what arrives while a transaction is in flight, and stores it together in the next one', async () => {
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    const bus = createTrafficBus();
    // The first transaction waits inside its hook until released; the arrivals meanwhile queue.
    const slow = createIngest({
      db: opened.db,
      dialect: opened.dialect,
      clock: systemClock,
      bus,
      hooks: [async () => void (calls++ === 0 && (await held))],
    });
    const first = slow.store(source, [record('/first')]);
    await new Promise((resolve) => setImmediate(resolve));
    const later: Promise<StoredEntry[]>[] = [];
    for (const path of ['/x', '/y', '/z']) {
      later.push(slow.store(source, [record(path)]));
      await new Promise((resolve) => setImmediate(resolve)); // separate turns of the event loop
    }
    release();
    const answers = await Promise.all([first, ...later]);
    expect(answers.map((a) => a.map((e) => e.pathname))).toEqual([['/first'], ['/x'], ['/y'], ['/z']]);
    expect(calls).toBe(2);
  });
});

/** A test database opened before each test, with one user's source, closed after it. */
function eachDatabaseWithSource(): () => { opened: OpenedDatabase; source: TrafficSource } {
  let current: { opened: OpenedDatabase; source: TrafficSource } | undefined;
  beforeEach(async () => {
    const opened = await openTestDatabase();
    const user = await createUser(opened.db, systemClock, { email: 'owner@example.com' });
    current = {
      opened,
      source: await createTrafficSource(opened.db, systemClock, user.id, {
        name: 's',
        trafficDomain: 'shop.example.com',
      }),
    };
  });
  afterEach(() => current?.opened.close());
  return () => {
    if (!current) throw new Error('no database outside a test');
    return current;
  };
}

describe('a transaction that lost a race', () => {
  const world = eachDatabaseWithSource();
  let opened: OpenedDatabase;
  let source: TrafficSource;
  beforeEach(() => ({ opened, source } = world()));

  it.each(['SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT', '40P01'])(
    'is run again whole when the database answers %s, and stores every record once',
    async (code) => {
      const record = (path: string) => recordAt(source.id, path);
      let calls = 0;
      // The first transaction fails as another process's write lock (or a deadlock) would fail it.
      const losesOnce = async () => {
        if (calls++ === 0) throw Object.assign(new Error('database is locked'), { code });
      };
      const ingest = createIngest({
        db: opened.db,
        dialect: opened.dialect,
        clock: systemClock,
        bus: createTrafficBus(),
        hooks: [losesOnce],
      });
      const stored = await ingest.store(source, [record('/a'), record('/b')]);
      expect(stored.map((e) => e.pathname)).toEqual(['/a', '/b']);
      expect(calls).toBe(2);
      expect(await opened.db.selectFrom('http_traffic').select('id').execute()).toHaveLength(2);
    },
  );
});

describe('two writers creating the same names at once', () => {
  const world = eachDatabaseWithSource();
  let opened: OpenedDatabase;
  let source: TrafficSource;
  beforeEach(() => ({ opened, source } = world()));

  it('stores everything, in any order of names, without a deadlock (two daemons on one PostgreSQL database)', async () => {
    const record = (path: string) => recordAt(source.id, path);
    // Each ingest is what one daemon runs; they share only the database.
    const [a, b] = [0, 1].map(() =>
      createIngest({ db: opened.db, dialect: opened.dialect, clock: systemClock, bus: createTrafficBus(), hooks: [] }),
    );
    const paths = Array.from({ length: 60 }, (_, i) => `/p${i}`);
    for (let round = 0; round < 3; round++) {
      const mine = paths.map((p) => `${p}/${round}`);
      await Promise.all([a?.store(source, mine.map(record)), b?.store(source, [...mine].reverse().map(record))]);
    }
    const stored = await opened.db.selectFrom('http_traffic').select('id').execute();
    expect(stored).toHaveLength(2 * 3 * paths.length);
    const names = await opened.db.selectFrom('pathnames').select('value').execute();
    expect(names).toHaveLength(3 * paths.length);
  });
});
