import { contract } from '@tapline/shared';
import { afterAll, describe, expect, it } from 'vitest';
import { composeBody, createSource, type Harness, startHarness } from '@tapline/testkit/daemon';
import type { Store } from '../db/open.js';
import { eachExchange, type RecordWindow } from './records.js';

/** Entry `i` of the three pages read (1,000 entries a page): two routes, two methods, bodies or none. */
const entry = (sourceId: string, i: number) =>
  composeBody(sourceId, {
    method: i % 3 === 0 ? 'POST' : 'GET',
    pathnameUrl: i % 2 === 0 ? `/api/items/${i}?page=${i % 7}` : `/api/users/${i}`,
    requestBody: i % 3 === 0 ? { name: `item ${i}`, tags: ['a', 'b'] } : null,
    responseBody: { id: i, at: new Date(1_700_000_000_000 + i).toISOString() },
  });
const ENTRIES = 2_001;

/** On SQLite a page is read as arrays from the connection's statement (decisions §25.13), not as Kysely's objects. */
describe('the pass over stored exchanges on SQLite', () => {
  let h: Harness | undefined;
  afterAll(() => h?.close());

  // Kysely's reads run the same SQL text, and so the connection's same statement: they see rows
  // as objects only if a pass set it back after reading arrays.
  it('reads the same exchanges, in the same order, as Kysely reads them', async () => {
    const harness = (h = await startHarness({ routeBackfill: { start: false } }));
    const { client } = await harness.user();
    const sourceId = (await createSource(client)).id;
    const ids = Array.from({ length: ENTRIES }, (_, i) => i);
    for (const batch of [ids.slice(0, 1000), ids.slice(1000, 2000), ids.slice(2000)])
      await client.call(contract.composeBatch, {
        params: { trafficSourceId: sourceId },
        body: batch.map((i) => entry(sourceId, i)),
      });
    const read = async (store: Store, window: RecordWindow) => {
      const exchanges = [];
      for await (const exchange of eachExchange(store, sourceId, window, Date.now())) exchanges.push(exchange);
      return exchanges;
    };
    expect(harness.deps.dialect.statements).toBeDefined();
    const throughKysely: Store = { db: harness.deps.db, dialect: { ...harness.deps.dialect, statements: undefined } };
    const all = await read(harness.deps, {});
    expect(all).toHaveLength(ENTRIES);
    expect(all).toEqual(await read(throughKysely, {}));
    const routes = [...new Set(all.flatMap((e) => (e.route === undefined ? [] : [e.route])))];
    expect(routes.length).toBeGreaterThanOrEqual(2);
    const window = { route: [...routes, '/none'] };
    const some = await read(harness.deps, window);
    expect(some).toHaveLength(ENTRIES);
    expect(some).toEqual(await read(throughKysely, window));
  });
});
