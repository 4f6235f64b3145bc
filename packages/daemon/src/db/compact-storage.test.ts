import { type HttpTraffic, parseFilter } from '@tapline/shared';
import { describe, expect, it } from 'vitest';
import { getTrafficRecord, listTraffic } from '../http-traffic/repo.js';
import type { Store } from './open.js';
import {
  asWritten,
  eachFreshDatabase,
  id,
  oldRecords,
  readBeforeRoutes,
  SOURCE,
  seedThreeTables,
} from '@tapline/testkit/daemon';

/**
 * A database of the three-table format upgrades in place (issue 14, compact storage): every field
 * of every record, and of every entry in the list, reads back the same, and the filters over
 * header sets and bodies find them.
 */
describe('the compact storage migration', () => {
  const database = eachFreshDatabase();

  const allEntries = async (store: Store = database()): Promise<HttpTraffic[]> =>
    (await listTraffic(store, SOURCE, {}, { page: 1, limit: 1000 })).data;

  it('keeps every field of every record and entry, and the filters over payloads find them', async () => {
    const opened = database();
    await seedThreeTables(opened, 160);
    const before = await oldRecords(opened.db);
    const entriesBefore = await readBeforeRoutes(opened, () => allEntries(asWritten(opened)));
    expect(before).toHaveLength(160);
    expect(entriesBefore).toHaveLength(160);

    await opened.migrate();

    const after = await Promise.all(before.map((r) => getTrafficRecord(opened, SOURCE, r.id)));
    expect(after).toEqual(before);
    expect(await allEntries()).toEqual(entriesBefore);
    const tables = (await opened.db.introspection.getTables()).map((t) => t.name);
    expect(tables).not.toContain('requests');
    expect(tables).not.toContain('responses');
    const ids = async (q: string) =>
      (await listTraffic(opened, SOURCE, { q: parseFilter(q) }, { page: 1, limit: 1000 })).data.map((e) => e.id);
    expect(await ids('header.x-note~"café ☕"')).toEqual([id(0, 0)]);
    expect(await ids('header.accept="b"')).toEqual([id(0, 0)]);
    expect(await ids('body~"naïve"')).toEqual([id(0, 0)]);
    expect((await ids('body~"sku"')).length).toBe(
      before.filter((r) => JSON.stringify([r.request.body, r.response.body]).toLowerCase().includes('sku')).length,
    );
  });

  it('finds nothing to do at the next start', async () => {
    const opened = database();
    await seedThreeTables(opened, 20);
    await opened.migrate();
    await opened.migrate();
    expect(await allEntries()).toHaveLength(20);
  });
});
