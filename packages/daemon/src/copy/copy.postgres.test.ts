import { contract } from '@tapline/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bulkyRecord, dumpTables, freshDatabase, type FreshDatabase, manualClock, type Receiver, startReceiver, startWebhookApp, type WebhookApp } from '@tapline/testkit/daemon';
import { openDatabase, type OpenedDatabase } from '../db/open.js';
import { copyDatabase } from './copy.js';
import { COPIED_TABLES } from './tables.js';
import { createTrafficBus } from '../http-traffic/bus.js';
import { createIngest } from '../http-traffic/ingest.js';
import { prepareRecord } from '../http-traffic/prepare.js';
import { createRedactor } from '../http-traffic/redact.js';
import { getTrafficRecord } from '../http-traffic/repo.js';
import { createSourceFinder } from '../traffic-sources/repo.js';

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
    const webhook = await app.client.call(contract.createWebhook, { params: { trafficSourceId: sourceId }, body: { type: 'http', level: 'fatal', value: receiver.url } });
    await app.client.call(contract.createAlertRule, { params: { trafficSourceId: sourceId }, body: { when: 'requests > 1/min', webhookIds: [webhook.id] } });
    await app.client.call(contract.createRouteRule, { params: { trafficSourceId: sourceId }, body: { template: '/orders/{order}' } });
    for (let i = 0; i < 25; i++) {
      clock.advance(7);
      await app.compose(sourceId, { status: i % 8 === 0 ? 503 : 201, pathnameUrl: `/orders/${i % 3}`, elapsedTime: 12.345678 + i });
    }
    await app.client.call(contract.createCoreLog, { params: { trafficSourceId: sourceId }, body: { title: 'Error', description: 'boom', source: 'api', layer: 'db', stack: 'at g (b.js:2)' } });
    await app.alerts.runDue();
    await app.worker.runDue();
    // A rule's reassignment as a daemon stopped half-way leaves it: the copies carry it on.
    await app.store.db.insertInto('route_reassignments').values({ traffic_source_id: sourceId, after_id: null, generation: 1 }).onConflict((oc) => oc.doNothing()).execute();
  });
  afterEach(async () => {
    for (const database of opened.splice(0)) await database.close();
    await app.close();
    await receiver.close();
    await fresh.drop();
  });

  it('gives back every row of every table unchanged', async () => {
    const laptop = await open(':memory:');
    await copyDatabase(app.store, laptop, { batchSize: 6 });
    // The laptop's own traffic, stored compressed with a trained dictionary (compact storage): it
    // reaches PostgreSQL as JSON text, and the way back gives the same records.
    const source = await createSourceFinder(laptop.db)((await laptop.db.selectFrom('traffic_sources').select('id').executeTakeFirstOrThrow()).id);
    if (!source) throw new Error('the copied source is missing');
    const ingest = createIngest({ db: laptop.db, dialect: laptop.dialect, clock, bus: createTrafficBus(), hooks: [] });
    const redactor = createRedactor({ enabled: true, extraKeys: [] });
    const records = contract.composeBatch.body.parse(Array.from({ length: 40 }, (_, i) => bulkyRecord(source.id, i, { requestHeaders: { 'x-note': 'café ☕' } })));
    await ingest.store(source, records.map((r) => prepareRecord(r, redactor).record));
    expect(laptop.dialect.payloads.compresses).toBe(true);
    const team = await open(fresh.locator);
    await copyDatabase(laptop, team, { batchSize: 6 });
    const back = await open(':memory:');
    await copyDatabase(team, back, { batchSize: 6 });

    const original = await dumpTables(laptop);
    for (const table of COPIED_TABLES) expect(original[table.name]?.length, table.name).toBeGreaterThan(0);
    expect(await dumpTables(back)).toEqual(original);
    const someId = (await laptop.db.selectFrom('http_traffic').select('id').orderBy('id', 'desc').executeTakeFirstOrThrow()).id;
    expect(await getTrafficRecord(team, source.id, someId)).toEqual(await getTrafficRecord(laptop, source.id, someId));
    expect(await dumpTables(team)).toEqual(original);
  });
});
