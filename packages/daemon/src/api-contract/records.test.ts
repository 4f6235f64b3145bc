import { contract } from '@tapline/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeBody, createSource, type Harness, startHarness } from '@tapline/testkit/daemon';
import { eachExchange } from './records.js';

/** Three pages of the reader (1,000 entries a page). */
const ENTRIES = 2_001;

/** Issue 28, "Speed": `api infer` and `api check` stream through the entries without holding the daemon. */
describe('the pass over stored exchanges', () => {
  let h: Harness;
  let sourceId: string;

  beforeAll(async () => {
    h = await startHarness({ routeBackfill: { start: false } });
    const { client } = await h.user();
    sourceId = (await createSource(client)).id;
    for (let from = 0; from < ENTRIES; from += 1_000) {
      const body = Array.from({ length: Math.min(1_000, ENTRIES - from) }, (_, i) =>
        composeBody(sourceId, { pathnameUrl: `/api/items/${from + i}`, responseBody: { id: from + i } }),
      );
      await client.call(contract.composeBatch, { params: { trafficSourceId: sourceId }, body });
    }
  });

  afterAll(async () => {
    await h.close();
  });

  it('gives the event loop a turn before each further page, so requests and ingest are served meanwhile', async () => {
    // SQLite's reads are synchronous: a pass that only awaited them never let a timer, a socket or
    // a batch in until its last page (a request on a kept-alive connection was reset meanwhile).
    let turns = 0;
    let reading = true;
    const turn = () => {
      turns += 1;
      if (reading) setImmediate(turn);
    };
    setImmediate(turn);
    const ids = new Set<string>();
    for await (const exchange of eachExchange(h.deps, sourceId, {}, Date.now())) ids.add(exchange.id);
    reading = false;
    const during = turns;
    expect(ids.size).toBe(ENTRIES);
    expect(during).toBeGreaterThanOrEqual(2);
  });
});
