import { type HttpTraffic, parseFilter } from '@tapline/shared';
import { type FreshDatabase, freshDatabase } from '@tapline/testkit/daemon';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getTrafficRecord, listTraffic } from '../http-traffic/repo.js';
import { type OpenedDatabase, openDatabase } from './open.js';
import { id, oldRecords, SOURCE, seedThreeTables } from './three-tables.fixture.js';

/**
 * A database of the three-table format upgrades in place (issue 14, compact storage): every field
 * of every record, and of every entry in the list, reads back the same, and the filters over
 * header sets and bodies find them.
 */
describe('the compact storage migration', () => {
  let fresh: FreshDatabase;
  let opened: OpenedDatabase;
  beforeEach(async () => {
    fresh = await freshDatabase();
    opened = openDatabase(fresh.locator);
  });
  afterEach(async () => {
    await opened.close();
    await fresh.drop();
  });

  const allEntries = async (): Promise<HttpTraffic[]> => (await listTraffic(opened, SOURCE, {}, { page: 1, limit: 1000 })).data;

  it('keeps every field of every record and entry, and the filters over payloads find them', async () => {
    await seedThreeTables(opened, 160);
    const before = await oldRecords(opened.db);
    const entriesBefore = await allEntries();
    expect(before).toHaveLength(160);
    expect(entriesBefore).toHaveLength(160);

    await opened.migrate();

    const after = await Promise.all(before.map((r) => getTrafficRecord(opened, SOURCE, r.id)));
    expect(after).toEqual(before);
    expect(await allEntries()).toEqual(entriesBefore);
    const tables = (await opened.db.introspection.getTables()).map((t) => t.name);
    expect(tables).not.toContain('requests');
    expect(tables).not.toContain('responses');
    const ids = async (q: string) => (await listTraffic(opened, SOURCE, { q: parseFilter(q) }, { page: 1, limit: 1000 })).data.map((e) => e.id);
    expect(await ids('header.x-note~"café ☕"')).toEqual([id(0, 0)]);
    expect(await ids('header.accept="b"')).toEqual([id(0, 0)]);
    expect(await ids('body~"naïve"')).toEqual([id(0, 0)]);
    expect((await ids('body~"sku"')).length).toBe(before.filter((r) => JSON.stringify([r.request.body, r.response.body]).toLowerCase().includes('sku')).length);
  });

  it('finds nothing to do at the next start', async () => {
    await seedThreeTables(opened, 20);
    await opened.migrate();
    await opened.migrate();
    expect(await allEntries()).toHaveLength(20);
  });
});
