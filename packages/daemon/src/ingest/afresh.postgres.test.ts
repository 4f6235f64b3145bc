import { ComposeRecord, type TrafficSource } from '@tapline/shared';
import { composeBody } from '@tapline/testkit';
import { beforeEach, expect, it } from 'vitest';
import type { OpenedDatabase } from '../db/open.js';
import { OVERLAP_RECORDS } from './ingest.js';
import { eachDatabaseWithSource, ingestOn } from './ingest.fixture.js';
import { prepareRecord } from './prepare.js';
import { createRedactor } from './redact.js';

/**
 * A group that failed with cached ids runs once more afresh (ingest/group.ts, `recoveryOf`); with
 * two groups in flight (decisions §20.42) the other one's commit fills the cache again meanwhile,
 * and a group that counted that as "cached" went afresh again after every failure, for ever.
 */
const world = eachDatabaseWithSource();
let opened: OpenedDatabase;
let source: TrafficSource;
beforeEach(() => ({ opened, source } = world()));

const redactor = createRedactor({ enabled: true, extraKeys: [] });
const recordAt = (path: string) =>
  prepareRecord(ComposeRecord.parse(composeBody(source.id, { pathnameUrl: path })), redactor).record;

it('runs a failing group afresh once, however many groups commit beside it, then refuses it', async () => {
  let attempts = 0;
  let others = 0;
  const ingest = ingestOn(opened, {
    hooks: [
      async (_trx, entries) => {
        if (entries[0]?.pathname !== '/fails') return;
        attempts += 1;
        if (attempts > 5) return; // the loop, ended so that the test can say so
        // Another group commits beside this one, and its ids go into the cache.
        others += 1;
        await ingest.store(
          source,
          Array.from({ length: OVERLAP_RECORDS }, (_, i) => recordAt(`/other${others}/${i}`)),
        );
        throw new Error('this group cannot be stored');
      },
    ],
  });
  await ingest.store(source, [recordAt('/warm')]);
  await expect(ingest.store(source, [recordAt('/fails')])).rejects.toThrow('this group cannot be stored');
  expect(attempts).toBe(2);
});
