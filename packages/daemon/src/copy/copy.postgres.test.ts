import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contract, type StatsAnswer } from '@tapline/shared';
import { statsViews } from '@tapline/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  bulkyRecord,
  dumpTables,
  freshDatabase,
  type FreshDatabase,
  manualClock,
  type Receiver,
  startHarness,
  startReceiver,
  startWebhookApp,
  type WebhookApp,
} from '@tapline/testkit/daemon';
import { openDatabase, type OpenedDatabase } from '../db/open.js';
import { copyDatabase } from './copy.js';
import { COPIED_TABLES } from './tables.js';
import { createTrafficBus } from '../stream/bus.js';
import { createIngest } from '../ingest/ingest.js';
import { prepareRecord } from '../ingest/prepare.js';
import { createRedactor } from '../ingest/redact.js';
import { getTrafficRecord } from '../http-traffic/repo.js';
import { createSourceFinder } from '../traffic-sources/repo.js';
import { lateBeforeAt, lockStats } from '../route-stats/writer.js';

/** Where the sibling slugs of the fixture go, before and after their rule. */
const SLUGS = ['blue-shirt', 'red-hat', 'green-sock', 'black-boot', 'white-tee'];
/** A window of whole minutes holding every entry the fixture sends at a time of its own. */
const WINDOW = { since: '2026-11-21T09:00:00.000Z', until: '2026-11-21T10:30:00.000Z' };

/**
 * A laptop's history moved to a team's PostgreSQL and back: SQLite → PostgreSQL → SQLite, with
 * every table of the last compared to the first, and `GET /stats` of a daemon on each copy
 * compared to the original's. (This project's source app is on PostgreSQL, as every in-process
 * test here is; the first SQLite database is filled by copying from it.)
 */
describe('copy round trip SQLite → PostgreSQL → SQLite', () => {
  const clock = manualClock('2026-11-21T10:00:00.000Z');
  let app: WebhookApp;
  let receiver: Receiver;
  let fresh: FreshDatabase;
  let files: string;
  let sourceId: string;
  let ownerId: string;
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
    files = mkdtempSync(join(tmpdir(), 'tapline-copy-'));
    sourceId = await app.source();
    ownerId = (
      await app.db.selectFrom('traffic_sources').select('user_id').where('id', '=', sourceId).executeTakeFirstOrThrow()
    ).user_id;
    const webhook = await app.client.call(contract.createWebhook, {
      params: { trafficSourceId: sourceId },
      body: { type: 'http', level: 'fatal', value: receiver.url },
    });
    await app.client.call(contract.createAlertRule, {
      params: { trafficSourceId: sourceId },
      body: { when: 'requests > 1/min', webhookIds: [webhook.id] },
    });
    await app.client.call(contract.createRouteRule, {
      params: { trafficSourceId: sourceId },
      body: { template: '/orders/{order}' },
    });
    for (let i = 0; i < 25; i++) {
      clock.advance(7);
      await app.compose(sourceId, {
        status: i % 8 === 0 ? 503 : 201,
        pathnameUrl: `/orders/${i % 3}`,
        elapsedTime: 12.345678 + i,
      });
    }
    // Slugs over an hour and a half, stored under their own paths, then moved by a rule added after them.
    for (let i = 0; i < 30; i++) {
      const startedAt = new Date(Date.parse(WINDOW.since) + i * 113_000).toISOString();
      await app.compose(sourceId, {
        pathnameUrl: `/products/${SLUGS[i % SLUGS.length] ?? ''}`,
        status: i % 7 === 3 ? 404 : i % 11 === 5 ? 500 : 200,
        elapsedTime: 3 + ((i * 37) % 90) + i / 7,
        startedAt,
      });
    }
    await app.client.call(contract.createRouteRule, {
      params: { trafficSourceId: sourceId },
      body: { template: '/products/{slug}' },
    });
    await app.routeReassignment.runNow();
    await app.client.call(contract.createCoreLog, {
      params: { trafficSourceId: sourceId },
      body: { title: 'Error', description: 'boom', source: 'api', layer: 'db', stack: 'at g (b.js:2)' },
    });
    await app.alerts.runDue();
    await app.worker.runDue();
    // A rule's reassignment as a daemon stopped half-way leaves it: the copies carry it on.
    await app.store.db
      .insertInto('route_reassignments')
      .values({ traffic_source_id: sourceId, after_id: null, generation: 1 })
      .onConflict((oc) => oc.doNothing())
      .execute();
  });
  afterEach(async () => {
    for (const database of opened.splice(0)) await database.close();
    await app.close();
    await receiver.close();
    await fresh.drop();
    rmSync(files, { recursive: true, force: true });
  });

  /** `GET /stats` of a daemon started on `locator`, asked by the source's owner (tokens are copied, so is the key). */
  async function viewsOn(locator: string): Promise<StatsAnswer[]> {
    // Its background jobs held, so that it reads the copy as it is and leaves it so.
    const daemon = await startHarness({
      database: locator,
      clock,
      routeReassignment: { start: false },
      routeBackfill: { start: false },
      pruner: { start: false },
    });
    try {
      return await statsViews(await daemon.token(ownerId), sourceId, WINDOW);
    } finally {
      await daemon.close();
    }
  }

  it('gives back every row of every table unchanged', async () => {
    const laptopFile = join(files, 'laptop.db');
    const laptop = await open(laptopFile);
    await copyDatabase(app.store, laptop, { batchSize: 6 });
    const stats = await statsViews(app.client, sourceId, WINDOW);
    // The rule moved every slug's entries and their numbers: one template, all of them, no slug left.
    const groups = stats[0]?.data.map((g) => `${g.method ?? ''} ${g.route ?? ''} ${g.count}`);
    expect(groups).toContain('GET /products/{slug} 30');
    expect(groups?.filter((g) => SLUGS.some((slug) => g.includes(slug)))).toEqual([]);
    expect(await viewsOn(laptopFile)).toEqual(stats);
    // The laptop's own traffic, stored compressed with a trained dictionary (compact storage): it
    // reaches PostgreSQL as JSON text, and the way back gives the same records.
    const source = await createSourceFinder(laptop.db)(
      (await laptop.db.selectFrom('traffic_sources').select('id').executeTakeFirstOrThrow()).id,
    );
    if (!source) throw new Error('the copied source is missing');
    // With its numbers, as a daemon's ingest writes them.
    const ingest = createIngest({
      db: laptop.db,
      dialect: laptop.dialect,
      clock,
      bus: createTrafficBus(),
      hooks: [],
      stats: (trx, inputs) => lockStats(trx, laptop.dialect, inputs, lateBeforeAt(Date.now())),
    });
    const redactor = createRedactor({ enabled: true, extraKeys: [] });
    const records = contract.composeBatch.body.parse(
      Array.from({ length: 40 }, (_, i) => bulkyRecord(source.id, i, { requestHeaders: { 'x-note': 'café ☕' } })),
    );
    await ingest.store(
      source,
      records.map((r) => prepareRecord(r, redactor).record),
    );
    expect(laptop.dialect.payloads.compresses).toBe(true);
    const team = await open(fresh.locator);
    await copyDatabase(laptop, team, { batchSize: 6 });
    const backFile = join(files, 'back.db');
    const back = await open(backFile);
    await copyDatabase(team, back, { batchSize: 6 });

    const original = await dumpTables(laptop);
    for (const table of COPIED_TABLES) expect(original[table.name]?.length, table.name).toBeGreaterThan(0);
    expect(await dumpTables(back)).toEqual(original);
    const someId = (
      await laptop.db.selectFrom('http_traffic').select('id').orderBy('id', 'desc').executeTakeFirstOrThrow()
    ).id;
    expect(await getTrafficRecord(team, source.id, someId)).toEqual(await getTrafficRecord(laptop, source.id, someId));
    expect(await dumpTables(team)).toEqual(original);

    // The laptop's own traffic counts too; each way, the copy answers as the laptop does.
    const laptopStats = await viewsOn(laptopFile);
    expect(laptopStats[0]?.data.reduce((n, g) => n + g.count, 0)).toBe(
      (stats[0]?.data.reduce((n, g) => n + g.count, 0) ?? 0) + 40,
    );
    expect(await viewsOn(fresh.locator)).toEqual(laptopStats);
    expect(await viewsOn(backFile)).toEqual(laptopStats);
  });
});
