import { contract } from '@tapline/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  dumpTables as dump,
  manualClock,
  openTestDatabase,
  type Receiver,
  startReceiver,
  startWebhookApp,
  type WebhookApp,
} from '@tapline/testkit/daemon';
import type { OpenedDatabase } from '../db/open.js';
import { CopyError, type CopyReporter, copyDatabase } from './copy.js';
import { COPIED_TABLES, unknownTables } from './tables.js';

describe('copying a database', () => {
  const clock = manualClock('2026-11-21T10:00:00.000Z');
  let source: WebhookApp;
  let receiver: Receiver;
  let target: OpenedDatabase;

  beforeEach(async () => {
    source = await startWebhookApp({ clock });
    receiver = await startReceiver();
    target = await openTestDatabase();
    // Something in every table: entries, counts, a core log, a webhook with a delivery and an attempt, an alert rule with a transition.
    const sourceId = await source.source();
    const webhook = await source.client.call(contract.createWebhook, {
      params: { trafficSourceId: sourceId },
      body: { type: 'http', level: 'fatal', value: receiver.url },
    });
    await source.client.call(contract.createAlertRule, {
      params: { trafficSourceId: sourceId },
      body: { when: 'requests > 1/min', webhookIds: [webhook.id] },
    });
    await source.client.call(contract.createRouteRule, {
      params: { trafficSourceId: sourceId },
      body: { template: '/items/{item}' },
    });
    for (let i = 0; i < 30; i++) {
      clock.advance(10);
      // Bodies of a realistic size, so that the source's payloads train a dictionary (compact storage).
      const items = Array.from({ length: 12 }, (_, k) => ({
        sku: `SKU-${i}-${k}`,
        name: 'Ceramic mug',
        unitPrice: 12.5 + k,
      }));
      await source.compose(sourceId, {
        status: i % 10 === 0 ? 500 : 200,
        pathnameUrl: `/items/${i % 4}`,
        responseBody: { items },
      });
    }
    // An entry sent an hour late raises the source's counter of late writes (route_stats_epochs).
    await source.compose(sourceId, {
      pathnameUrl: '/items/late',
      startedAt: new Date(clock.now().getTime() - 3_600_000).toISOString(),
    });
    await source.client.call(contract.createCoreLog, {
      params: { trafficSourceId: sourceId },
      body: {
        title: 'TypeError',
        description: 'x is undefined',
        source: 'api',
        layer: 'service',
        stack: 'at f (a.js:1)',
      },
    });
    await source.alerts.runDue();
    await source.worker.runDue();
    // The rule's own reassignment runs in the background: done first, or its end would delete the
    // row below (seen on a loaded machine, where it was still running at this point).
    await source.routeReassignment.runNow();
    // A rule's reassignment as a daemon stopped half-way leaves it: the copy carries it on.
    await source.store.db
      .insertInto('route_reassignments')
      .values({ traffic_source_id: sourceId, after_id: null, generation: 1 })
      .onConflict((oc) => oc.doNothing())
      .execute();
  });
  afterEach(async () => {
    await source.close();
    await receiver.close();
    await target.close();
  });

  it('copies every row of every table unchanged, and each table is populated by the fixture', async () => {
    const copied = await copyDatabase(source.store, target, { batchSize: 7 });
    const original = await dump(source.store);
    // Dictionaries exist where payloads are compressed (SQLite); PostgreSQL stores JSON text.
    const filled = COPIED_TABLES.filter(
      (t) => t.name !== 'payload_dictionaries' || source.store.dialect.payloads.compresses,
    );
    for (const table of filled) expect(original[table.name]?.length, table.name).toBeGreaterThan(0);
    expect(await dump(target)).toEqual(original);
    expect(copied.find((c) => c.table === 'http_traffic')).toEqual({
      table: 'http_traffic',
      rows: 31,
      alreadyThere: 0,
    });
  });

  it('resumes an interrupted copy without duplicating or losing a row', async () => {
    const interrupt = new AbortController();
    let advanced = 0;
    const report: CopyReporter = {
      start: () => undefined,
      advance: (table) => {
        if (table === 'http_traffic' && ++advanced === 2) interrupt.abort(new Error('interrupted'));
      },
      finish: () => undefined,
    };
    await expect(
      copyDatabase(source.store, target, { batchSize: 5, report, signal: interrupt.signal }),
    ).rejects.toThrow('interrupted');
    const partial = await dump(target);
    expect(partial.http_traffic).toHaveLength(10);
    expect(partial.traffic_counts).toHaveLength(0);

    const resumed = await copyDatabase(source.store, target, { batchSize: 5 });
    expect(await dump(target)).toEqual(await dump(source.store));
    expect(resumed.find((c) => c.table === 'http_traffic')).toMatchObject({ rows: 31, alreadyThere: 10 });
    expect(resumed.find((c) => c.table === 'users')?.alreadyThere).toBeGreaterThan(0);
  });

  it('refuses to resume from a source that changed since the interruption, and to copy twice into one database', async () => {
    const interrupt = new AbortController();
    const report: CopyReporter = {
      start: () => undefined,
      advance: (table) => table === 'http_traffic' && interrupt.abort(new Error('interrupted')),
      finish: () => undefined,
    };
    await expect(
      copyDatabase(source.store, target, { batchSize: 5, report, signal: interrupt.signal }),
    ).rejects.toThrow('interrupted');
    await source.compose(await source.source('later'));
    await expect(copyDatabase(source.store, target, { batchSize: 5 })).rejects.toThrow(
      'the source has changed since the interrupted copy began',
    );

    const again = await openTestDatabase();
    try {
      await copyDatabase(source.store, again, { batchSize: 50 });
      await expect(copyDatabase(source.store, again, { batchSize: 50 })).rejects.toThrow(
        'the destination already holds a finished copy of this database',
      );
    } finally {
      await again.close();
    }
  });

  it('refuses a destination that holds another Tapline database, and writes nothing to it', async () => {
    const other = await startWebhookApp({ clock });
    try {
      await other.source('theirs');
      const before = await dump(other.store);
      await expect(copyDatabase(source.store, other.store, { batchSize: 50 })).rejects.toThrow(CopyError);
      await expect(copyDatabase(source.store, other.store, { batchSize: 50 })).rejects.toThrow(
        'the destination already holds another Tapline database',
      );
      expect(await dump(other.store)).toEqual(before);
    } finally {
      await other.close();
    }
  });

  it('reports the rows it copies, adding up to the total it announced', async () => {
    const seen = { total: 0, rows: 0, finished: false };
    await copyDatabase(source.store, target, {
      batchSize: 4,
      report: {
        start: (total) => (seen.total = total),
        advance: (_table, rows) => (seen.rows += rows),
        finish: () => (seen.finished = true),
      },
    });
    expect(seen.rows).toBe(seen.total);
    expect(seen.finished).toBe(true);
  });
});

describe('the tables a copy knows', () => {
  it('names every table the migrations create', async () => {
    const db = await openTestDatabase();
    try {
      const tables = (await db.db.introspection.getTables()).map((t) => t.name);
      expect(unknownTables(tables)).toEqual([]);
      expect(COPIED_TABLES.map((t) => t.name).filter((name) => !tables.includes(name))).toEqual([]);
    } finally {
      await db.close();
    }
  });
});
