import { contract } from '@tapline/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dumpTables, freshDatabase, type FreshDatabase, manualClock, type Receiver, startReceiver, startWebhookApp, type WebhookApp } from '@tapline/testkit/daemon';
import { openDatabase, type OpenedDatabase } from '../db/open.js';
import { copyDatabase } from './copy.js';
import { COPIED_TABLES } from './tables.js';

/**
 * A laptop's history moved to a team's PostgreSQL and back: SQLite → PostgreSQL → SQLite, with
 * every table of the last compared to the first. (This project's source app is on PostgreSQL, as
 * every in-process test here is; the first SQLite database is filled by copying from it.)
 */
describe('copy round trip SQLite → PostgreSQL → SQLite', () => {
  const clock = manualClock('2026-11-21T10:00:00.000Z');
  let app: WebhookApp;
  let receiver: Receiver;
  let fresh: FreshDatabase;
  const opened: OpenedDatabase[] = [];

  async function open(locator: string): Promise<OpenedDatabase> {
    const database = openDatabase(locator, { pool: 2 });
    opened.push(database);
    await database.migrate();
    return database;
  }

  beforeEach(async () => {
    app = await startWebhookApp({ clock });
    receiver = await startReceiver();
    fresh = await freshDatabase();
    const sourceId = await app.source();
    await app.client.call(contract.createWebhook, { params: { trafficSourceId: sourceId }, body: { type: 'http', level: 'fatal', value: receiver.url } });
    for (let i = 0; i < 25; i++) {
      clock.advance(7);
      await app.compose(sourceId, { status: i % 8 === 0 ? 503 : 201, pathnameUrl: `/orders/${i % 3}`, elapsedTime: 12.345678 + i });
    }
    await app.client.call(contract.createCoreLog, { params: { trafficSourceId: sourceId }, body: { title: 'Error', description: 'boom', source: 'api', layer: 'db', stack: 'at g (b.js:2)' } });
    await app.worker.runDue();
  });
  afterEach(async () => {
    for (const database of opened.splice(0)) await database.close();
    await app.close();
    await receiver.close();
    await fresh.drop();
  });

  it('gives back every row of every table unchanged', async () => {
    const laptop = await open(':memory:');
    await copyDatabase(app.db, laptop.db, { batchSize: 6 });
    const team = await open(fresh.locator);
    await copyDatabase(laptop.db, team.db, { batchSize: 6 });
    const back = await open(':memory:');
    await copyDatabase(team.db, back.db, { batchSize: 6 });

    const original = await dumpTables(laptop.db);
    for (const table of COPIED_TABLES) expect(original[table.name]?.length, table.name).toBeGreaterThan(0);
    expect(await dumpTables(back.db)).toEqual(original);
    expect(await dumpTables(team.db)).toEqual(original);
  });
});
