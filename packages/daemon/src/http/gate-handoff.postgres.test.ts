import { sql } from 'kysely';
import { afterEach, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../config.js';
import { composeBody, createSource, type Harness, MISSING_ID, startHarness } from '@tapline/testkit/daemon';

/**
 * On PostgreSQL a prepared large batch hands its place at the large-batch gate to the next body
 * while it is stored (docs/decisions.md §20.28), and two are stored at once (§20.42). The batch being stored is held in its transaction
 * by a lock on the stream counter, which every ingest transaction takes last (§9.7).
 */
let h: Harness | undefined;
afterEach(() => h?.close());

/** A daemon on PostgreSQL whose large batches are those over 4 KiB, one at a time. */
async function start(largeBatchWaitMs: number) {
  h = await startHarness({
    config: { limits: { ...DEFAULT_LIMITS, largeBatchBytes: 4096, largeBatches: 1, largeBatchWaitMs } },
  });
  const harness = h;
  const user = await harness.user();
  const sourceId = (await createSource(user.client)).id;
  const post = (id: string, body: string) =>
    harness.fetch(`/http-traffic-record/${id}/batch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.token}`, 'content-type': 'application/json' },
      body,
    });
  const stored = harness.deps.storedBatches;
  if (!stored) throw new Error('no gate for stored batches on PostgreSQL');
  return { harness, sourceId, post, stored };
}

/** Runs `during` while every ingest transaction waits on the stream counter; `unlock` lets them go. */
async function whileStoringWaits(harness: Harness, during: (unlock: () => void) => Promise<void>): Promise<void> {
  let unlock = () => {};
  const held = new Promise<void>((resolve) => (unlock = resolve));
  let locked = () => {};
  const lockTaken = new Promise<void>((resolve) => (locked = resolve));
  const lock = harness.deps.db.transaction().execute(async (trx) => {
    await sql`lock table stream_sequence in exclusive mode`.execute(trx);
    locked();
    await held;
  });
  await lockTaken;
  try {
    await during(unlock);
  } finally {
    unlock();
    await lock;
  }
}

const batchOf = (sourceId: string) => JSON.stringify(Array.from({ length: 40 }, () => composeBody(sourceId)));

it('stores two large batches at once, reads and prepares a third meanwhile, and a fourth waits to be read', async () => {
  const { harness, sourceId, post, stored } = await start(5_000);
  const body = batchOf(sourceId);
  expect(body.length).toBeGreaterThan(4096);
  await whileStoringWaits(harness, async (unlock) => {
    const first = post(sourceId, body);
    await expect.poll(() => stored.running).toBe(1);
    // Two have a place to be stored at once (decisions §20.42): the second, read and prepared, takes
    // the other (its 40 records wait in the ingest's queue; 500 would start a group of their own).
    const second = post(sourceId, body);
    await expect.poll(() => stored.running).toBe(2);
    // The third is read and prepared, and waits its turn to be stored.
    const third = post(sourceId, body);
    await expect.poll(() => stored.waiting).toBe(1);
    expect(harness.deps.largeBodies.running).toBe(1);
    // The third holds the reading place: the fourth waits before its body is read.
    const fourth = post(sourceId, body);
    await expect.poll(() => harness.deps.largeBodies.waiting).toBe(1);
    unlock();
    expect((await Promise.all([first, second, third, fourth])).map((r) => r.status)).toEqual([201, 201, 201, 201]);
  });
  await expect.poll(() => stored.running).toBe(0);
  expect(harness.deps.largeBodies.running).toBe(0);
});

it('answers an invalid or misaddressed large batch with its 4xx, not a 503 after waiting for a turn to be stored', async () => {
  // The batch being stored is held for longer than --large-batch-wait: a refusal that waited for
  // a turn would be a 503 (the hand-over comes after the path, content and access checks).
  const { harness, sourceId, post, stored } = await start(1_000);
  const items = Array.from({ length: 40 }, () => composeBody(sourceId));
  const invalid = JSON.stringify(items.map((item, i) => (i === 3 ? { ...item, method: 12 } : item)));
  const lost = batchOf(MISSING_ID);
  // Without a batch being stored, the invalid one is a 400 and the unknown source a 404.
  expect((await post(sourceId, invalid)).status).toBe(400);
  expect((await post(MISSING_ID, lost)).status).toBe(404);
  await whileStoringWaits(harness, async (unlock) => {
    // Both places to be stored are taken: a refusal that waited for one would wait past 1 s.
    const valid = [post(sourceId, JSON.stringify(items)), post(sourceId, JSON.stringify(items))];
    await expect.poll(() => stored.running).toBe(2);
    setTimeout(unlock, 3_500);
    expect([(await post(sourceId, invalid)).status, (await post(MISSING_ID, lost)).status]).toEqual([400, 404]);
    expect((await Promise.all(valid)).map((r) => r.status)).toEqual([201, 201]);
  });
});
