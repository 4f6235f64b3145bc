import { ComposeRecord, type TrafficSource } from '@tapline/shared';
import { composeBody, holdPoint } from '@tapline/testkit';
import { type FreshDatabase, freshDatabase } from '@tapline/testkit/daemon';
import { sql } from 'kysely';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createUser } from '../auth/users.js';
import { systemClock } from '../clock.js';
import { createIngest } from '../ingest/ingest.js';
import { prepareRecord } from '../ingest/prepare.js';
import { createRedactor } from '../ingest/redact.js';
import { createTrafficBus } from '../stream/bus.js';
import { createTrafficSource } from '../traffic-sources/repo.js';
import { openDatabase, type OpenedDatabase } from './open.js';
import { postgresSignals } from './pg-signals.js';
import type { ClusterSignals } from './signals.js';

/**
 * An ingest group's NOTIFY goes in its own transaction (decisions §20.24): another daemon hears of
 * the entries when they commit, never before, and never of a group that rolled back.
 */
describe("ingest's signal to the other daemons", () => {
  let database: FreshDatabase;
  let opened: OpenedDatabase;
  let source: TrafficSource;
  const closing: ClusterSignals[] = [];
  const logger = pino({ level: 'silent' });
  const redactor = createRedactor({ enabled: true, extraKeys: [] });
  const record = (path: string) =>
    prepareRecord(ComposeRecord.parse(composeBody(source.id, { pathnameUrl: path })), redactor).record;

  beforeEach(async () => {
    database = await freshDatabase({ migrated: true });
    opened = openDatabase(database.locator, { pool: 2 });
    const user = await createUser(opened.db, systemClock, { email: 'a@example.com' });
    source = await createTrafficSource(opened.db, systemClock, user.id, {
      name: 's',
      trafficDomain: 'shop.example.com',
    });
  });
  afterEach(async () => {
    await Promise.all(closing.splice(0).map((s) => s.close()));
    await opened.close();
    await database.drop();
  });

  /** A daemon's signals to send with. */
  function sender(): ClusterSignals {
    const signals = postgresSignals(database.locator, logger);
    closing.push(signals);
    return signals;
  }

  /**
   * Every 'traffic' signal another daemon hears from `signals`; returned once it listens (a NOTIFY
   * sent after its LISTEN is heard).
   */
  async function listener(signals: ClusterSignals): Promise<string[]> {
    const other = sender();
    const heard: string[] = [];
    other.listen('traffic', (payload) => heard.push(payload));
    await vi.waitFor(
      () => {
        signals.notify('traffic');
        expect(heard.length).toBeGreaterThan(0);
      },
      { timeout: 10_000, interval: 100 },
    );
    // The last probe may still be on its way (a signal asked while one is out goes once more after it).
    await new Promise((resolve) => setTimeout(resolve, 300));
    heard.length = 0;
    return heard;
  }

  it('is heard at the commit, once a group, not while the transaction is open', async () => {
    const signals = sender();
    const heard = await listener(signals);
    const hold = holdPoint();
    const ingest = createIngest({
      db: opened.db,
      dialect: opened.dialect,
      clock: systemClock,
      signals,
      bus: createTrafficBus(),
      hooks: [() => hold.wait()],
    });
    const stored = ingest.store(source, [record('/a'), record('/b')]);
    // A group that failed before the hook fails the test rather than leaving it waiting.
    await Promise.race([hold.reached, stored]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(heard).toEqual([]);
    hold.release();
    await stored;
    await vi.waitFor(() => expect(heard).toEqual(['']), { timeout: 10_000 });
  });

  it('is not heard from a transaction that rolled back, even once the server ran the NOTIFY', async () => {
    const signals = sender();
    const heard = await listener(signals);
    const sent = async (fail: boolean) =>
      opened.db.transaction().execute(async (trx) => {
        await signals.notifyAtCommit(trx, 'traffic');
        // A statement without parameters takes what waits with it: the server has run the NOTIFY.
        const [row] = (await sql<{ n: number }>`select 1 as n`.execute(trx)).rows;
        if (fail) throw new Error(`refused by the test after ${row?.n ?? 0}`);
      });
    await expect(sent(true)).rejects.toThrow('refused by the test after 1');
    await sent(false);
    // Signals are heard in commit order: had the rolled-back one been delivered, it would come first.
    await vi.waitFor(() => expect(heard.length).toBeGreaterThan(0), { timeout: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(heard).toEqual(['']);
  });
});
