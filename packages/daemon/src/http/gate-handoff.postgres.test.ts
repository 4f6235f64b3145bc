import { sql } from 'kysely';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../config.js';
import { composeBody, createSource, type Harness, startHarness } from '@tapline/testkit/daemon';

/**
 * On PostgreSQL a prepared large batch hands its place at the large-batch gate to the next body
 * while it is stored (docs/decisions.md §20.28). The first batch is held in its transaction by a
 * lock on the stream counter, which every ingest transaction takes last (§9.7).
 */
let h: Harness;
beforeEach(async () => {
  h = await startHarness({
    config: { limits: { ...DEFAULT_LIMITS, largeBatchBytes: 4096, largeBatches: 1, largeBatchWaitMs: 5_000 } },
  });
});
afterEach(() => h.close());

it('reads and prepares the next large batch while one is stored, and a third waits to be read', async () => {
  const user = await h.user();
  const sourceId = (await createSource(user.client)).id;
  const body = JSON.stringify(Array.from({ length: 40 }, () => composeBody(sourceId)));
  expect(body.length).toBeGreaterThan(4096);
  const post = () =>
    h.fetch(`/http-traffic-record/${sourceId}/batch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.token}`, 'content-type': 'application/json' },
      body,
    });
  const stored = h.deps.storedBatches;
  if (!stored) throw new Error('no gate for stored batches on PostgreSQL');

  let unlock = () => {};
  const held = new Promise<void>((resolve) => (unlock = resolve));
  let locked = () => {};
  const lockTaken = new Promise<void>((resolve) => (locked = resolve));
  const lock = h.deps.db.transaction().execute(async (trx) => {
    await sql`lock table stream_sequence in exclusive mode`.execute(trx);
    locked();
    await held;
  });
  await lockTaken;
  try {
    const first = post();
    await expect.poll(() => stored.running).toBe(1);
    // The first is stored (waiting on the lock): the second is read and prepared, and waits its turn.
    const second = post();
    await expect.poll(() => stored.waiting).toBe(1);
    expect(h.deps.largeBodies.running).toBe(1);
    // The second holds the reading place: the third waits before its body is read.
    const third = post();
    await expect.poll(() => h.deps.largeBodies.waiting).toBe(1);
    unlock();
    expect((await Promise.all([first, second, third])).map((r) => r.status)).toEqual([201, 201, 201]);
  } finally {
    unlock();
    await lock;
  }
  await expect.poll(() => stored.running).toBe(0);
  expect(h.deps.largeBodies.running).toBe(0);
});
