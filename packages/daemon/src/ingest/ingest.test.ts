import { sql } from 'kysely';
import { ComposeRecord, type TrafficSource } from '@tapline/shared';
import { composeBody, holdPoint } from '@tapline/testkit';
import { openTestDatabase } from '@tapline/testkit/daemon';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createUser } from '../auth/users.js';
import type { OpenedDatabase } from '../db/open.js';
import { systemClock } from '../clock.js';
import { createTrafficSource } from '../traffic-sources/repo.js';
import { createTrafficBus, type StoredEntry } from '../stream/bus.js';
import { type Ingest, OVERLAP_RECORDS } from './ingest.js';
import { eachDatabaseWithSource, ingestOn } from './ingest.fixture.js';
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
    queue = ingestOn(opened, { bus, hooks: [countTransactions] });
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
    const slow = ingestOn(opened, { bus, hooks: [async () => void (calls++ === 0 && (await held))] });
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
      const ingest = ingestOn(opened, { hooks: [losesOnce] });
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
    const [a, b] = [0, 1].map(() => ingestOn(opened));
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

describe('large batches while a group is in flight', () => {
  const world = eachDatabaseWithSource();
  let opened: OpenedDatabase;
  let source: TrafficSource;
  beforeEach(() => ({ opened, source } = world()));

  const batchOf = (prefix: string) =>
    Array.from({ length: OVERLAP_RECORDS }, (_, i) => recordAt(source.id, `${prefix}/${i}`));

  it('start a second group beside it on PostgreSQL, and wait for it on SQLite; both commit in stream order', async () => {
    const entered: string[] = [];
    let releasedBy: string | undefined;
    const first = holdPoint();
    const published: { batch: string | undefined; seqs: number[] }[] = [];
    const bus = createTrafficBus();
    bus.subscribe((committed) =>
      published.push({ batch: committed[0]?.entry.pathname.split('/')[1], seqs: committed.map((c) => c.seq) }),
    );
    // The first group's transaction waits inside its hook (its names and routes made, before the
    // stream counter) until the second group's transaction reaches its own hook, or a timeout.
    const overlapping = opened.dialect.backend === 'postgres';
    const ingest = ingestOn(opened, {
      bus,
      hooks: [
        async (_trx, entries) => {
          const batch = entries[0]?.pathname.split('/')[1] ?? '';
          entered.push(batch);
          if (batch === 'two') first.release();
          if (batch !== 'one') return;
          releasedBy = await Promise.race([
            first.wait().then(() => 'the second group' as const),
            // Long enough for the second group's 500 new paths on a busy PostgreSQL; on SQLite it never comes.
            new Promise<'a timeout'>((resolve) => setTimeout(() => resolve('a timeout'), overlapping ? 20_000 : 1_000)),
          ]);
        },
      ],
    });
    // The domain is created by a group of its own: a group creating it holds its row till it commits.
    await ingest.store(source, [recordAt(source.id, '/first')]);
    entered.length = 0;
    published.length = 0;
    const one = ingest.store(source, batchOf('/one'));
    await first.reached;
    const two = ingest.store(source, batchOf('/two'));
    const [storedOne, storedTwo] = await Promise.all([one, two]);
    // SQLite: the second group began only once the first one had waited out its timeout and committed.
    expect(releasedBy).toBe(overlapping ? 'the second group' : 'a timeout');
    expect(entered).toEqual(['one', 'two']);
    expect(storedOne).toHaveLength(OVERLAP_RECORDS);
    expect(storedTwo).toHaveLength(OVERLAP_RECORDS);
    // Whichever took the stream counter first has the lower numbers: each group's consecutive,
    // every number once.
    expect(published.map((group) => group.batch).sort()).toEqual(['one', 'two']);
    const numbers = published.flatMap((group) => group.seqs).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 2 * OVERLAP_RECORDS }, (_, i) => (numbers[0] ?? 0) + i));
    for (const { seqs } of published) expect(seqs.at(-1)! - seqs[0]!).toBe(OVERLAP_RECORDS - 1);
    const stored = await opened.db.selectFrom('http_traffic').select('stream_seq').orderBy('stream_seq').execute();
    expect(stored.slice(1).map((row) => Number(row.stream_seq))).toEqual(numbers);
  });

  it('store both when the second names the same new paths while the first holds them, each path created once', async () => {
    let calls = 0;
    let secondStarted: boolean | undefined;
    let secondWaited: boolean | undefined;
    const first = holdPoint();
    const overlapping = opened.dialect.backend === 'postgres';
    const ingest: Ingest = ingestOn(opened, {
      // The first group's transaction, its new paths created and held, waits until the second
      // group has been taken from the queue (PostgreSQL), or 500 ms (SQLite: it never is).
      hooks: [
        async (_trx, entries) => {
          // The first group of the shared paths only (not the warm-up, not the second).
          if (!entries[0]?.pathname.startsWith('/shared/') || calls++ > 0) return;
          await first.wait();
          const until = Date.now() + (overlapping ? 10_000 : 500);
          while (ingest.queuedRecords > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
          secondStarted = ingest.queuedRecords === 0;
          if (!overlapping) return;
          // The second group waits for a path this one made and holds (PostgreSQL's lock, not ours).
          const waiting = async () =>
            (
              await sql<{
                n: number;
              }>`select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()`.execute(
                opened.db,
              )
            ).rows[0]?.n ?? 0;
          while ((await waiting()) === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
          secondWaited = (await waiting()) > 0;
        },
      ],
    });
    await ingest.store(source, [recordAt(source.id, '/first')]);
    const batch = batchOf('/shared');
    const one = ingest.store(source, batch);
    await first.reached;
    const two = ingest.store(source, [...batch].reverse());
    first.release();
    await Promise.all([one, two]);
    expect(secondStarted).toBe(overlapping);
    if (overlapping) expect(secondWaited).toBe(true);
    const stored = await opened.db.selectFrom('http_traffic').select('id').execute();
    expect(stored).toHaveLength(1 + 2 * OVERLAP_RECORDS);
    const names = await opened.db.selectFrom('pathnames').select('value').execute();
    expect(names).toHaveLength(1 + OVERLAP_RECORDS);
    const counts = await opened.db
      .selectFrom('traffic_counts')
      .select((eb) => eb.fn.sum<number>('count').as('n'))
      .executeTakeFirst();
    expect(Number(counts?.n)).toBe(1 + 2 * OVERLAP_RECORDS);
  });
});
