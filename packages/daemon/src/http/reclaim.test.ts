import { expect, it } from 'vitest';
import { createReclaimer } from './reclaim.js';

/** A dropped batch, seen through a WeakRef; a new job starts before it is looked at (WeakRefs keep their target until then). */
async function droppedBatch(): Promise<WeakRef<object>> {
  const ref = new WeakRef({ batch: 'x'.repeat(1024) });
  await new Promise((resolve) => setImmediate(resolve));
  return ref;
}

it('collects garbage shortly after soon(), with nothing else allocating', async () => {
  const reclaim = createReclaimer(20);
  const batch = await droppedBatch();
  reclaim.soon();
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(batch.deref()).toBeUndefined();
});

it('collects at once on due() when a collection is pending, before the next batch', async () => {
  const reclaim = createReclaimer(60_000);
  const batch = await droppedBatch();
  reclaim.soon();
  reclaim.due();
  expect(batch.deref()).toBeUndefined();
});
