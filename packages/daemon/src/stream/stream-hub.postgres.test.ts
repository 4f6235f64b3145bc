import { contract } from '@tapline/shared';
import { adminShutdown, createSource, databaseOutage, type Harness, startHarness } from '@tapline/testkit/daemon';
import { composeBody } from '@tapline/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { createStreamHub } from './stream-hub.js';

/** PostgreSQL only: there the hub reads the table from a position it takes at its start. */
describe('the stream hub across a database outage', () => {
  let h: Harness | undefined;
  afterEach(() => h?.close());

  it('started while the database is down, is ready once it is back and hands over what is committed then', async () => {
    h = await startHarness({ pruner: { start: false } });
    const client = (await h.user()).client;
    const sourceId = (await createSource(client)).id;
    const outage = databaseOutage(h.deps.db);
    outage.fail(adminShutdown());
    const hub = createStreamHub({ ...h.deps, pollMs: 50 });
    const seen: string[] = [];
    const leave = hub.subscribe(sourceId, (committed) => seen.push(...committed.map((c) => c.entry.id)));
    await expect(hub.ready()).rejects.toMatchObject({ code: '57P01' });
    outage.heal();
    await hub.ready();
    const { id } = await client.call(contract.composeRecord, {
      params: { trafficSourceId: sourceId },
      body: composeBody(sourceId),
    });
    await expect.poll(() => seen, { timeout: 10_000 }).toEqual([id]);
    leave();
  });
});
