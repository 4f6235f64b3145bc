import { expect, it, vi } from 'vitest';
import { createReclaimer, RECLAIM_BUDGET_BYTES } from './reclaim.js';

/** The contexts made through node:vm's runInNewContext, which still makes each one. */
const made = vi.hoisted(() => ({ contexts: 0, withoutGc: false }));
vi.mock('node:vm', async (importOriginal) => {
  const vm = await importOriginal<typeof import('node:vm')>();
  return {
    ...vm,
    runInNewContext: (...args: Parameters<typeof vm.runInNewContext>): unknown => {
      made.contexts += 1;
      // As a context made without `--expose-gc` answers the name.
      if (made.withoutGc) throw new ReferenceError('gc is not defined');
      return vm.runInNewContext(...args);
    },
  };
});

/** The next job: a WeakRef looked at keeps its target until the job ends. */
const nextJob = () => new Promise((resolve) => setImmediate(resolve));

/** A dropped batch, seen through a WeakRef; a new job starts before it is looked at. */
async function droppedBatch(): Promise<WeakRef<object>> {
  const ref = new WeakRef({ batch: 'x'.repeat(1024) });
  await nextJob();
  return ref;
}

/**
 * `run` on the test's clock for timeouts, so nothing else runs (or allocates) between soon() and
 * the collection; the real clock again after.
 */
async function onTestClock(run: () => unknown): Promise<void> {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  try {
    await run();
  } finally {
    vi.useRealTimers();
  }
}

it('collects garbage once its delay has passed after soon(), not before', async () => {
  const batch = await droppedBatch();
  await onTestClock(() => {
    const reclaim = createReclaimer(20);
    reclaim.soon();
    vi.advanceTimersByTime(19);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(1);
    expect(vi.getTimerCount()).toBe(0);
    expect(batch.deref()).toBeUndefined();
  });
});

it('collects at once on due() when a collection is pending, before the next batch', async () => {
  const reclaim = createReclaimer(60_000);
  const batch = await droppedBatch();
  reclaim.soon();
  reclaim.due();
  expect(batch.deref()).toBeUndefined();
});

it('waits for large bodies to add up to its budget before it collects after a delay', async () => {
  const batch = await droppedBatch();
  await onTestClock(async () => {
    const reclaim = createReclaimer(20, { budgetBytes: 3_000_000, quietMs: 1_000 });
    for (const _ of [1, 2]) {
      reclaim.soon(1_200_000);
      vi.advanceTimersByTime(500);
      reclaim.due(1_200_000);
    }
    expect(batch.deref()).toBeDefined();
    await nextJob();
    // The third batch reaches the budget: collected its delay later, as after one large batch.
    reclaim.soon(1_200_000);
    vi.advanceTimersByTime(19);
    expect(batch.deref()).toBeDefined();
    await nextJob();
    vi.advanceTimersByTime(1);
    expect(batch.deref()).toBeUndefined();
    expect(vi.getTimerCount()).toBe(0);
  });
});

it('collects bodies under the budget once none follows for its quiet time', async () => {
  const batch = await droppedBatch();
  await onTestClock(async () => {
    const reclaim = createReclaimer(20, { budgetBytes: 16_000_000, quietMs: 1_000 });
    reclaim.soon(1_500_000);
    vi.advanceTimersByTime(900);
    // Another batch within the quiet time puts the collection off again.
    reclaim.soon(1_500_000);
    vi.advanceTimersByTime(900);
    expect(batch.deref()).toBeDefined();
    await nextJob();
    vi.advanceTimersByTime(100);
    expect(batch.deref()).toBeUndefined();
    expect(vi.getTimerCount()).toBe(0);
  });
});

it('collects after a batch of half the largest body or more, as after every large batch before', async () => {
  // e2e/memory.test.ts's batches are 15,363,001 bytes: under the largest body, over half of it.
  expect(15_363_001).toBeLessThan(RECLAIM_BUDGET_BYTES);
  // The batch worker's reclaimer collects before the next batch.
  const worker = createReclaimer(0);
  const parsed = await droppedBatch();
  worker.soon(15_363_001);
  worker.due(1_500_000);
  expect(parsed.deref()).toBeUndefined();
});

it("collects small batches' garbage before parsing a batch of half the largest body or more", async () => {
  const worker = createReclaimer(0);
  const parsed = await droppedBatch();
  worker.soon(1_500_000);
  worker.due(RECLAIM_BUDGET_BYTES / 2);
  expect(parsed.deref()).toBeUndefined();
});

it('does nothing for a body that left nothing (a client gone while it waited)', async () => {
  await onTestClock(async () => {
    const reclaim = createReclaimer(20);
    reclaim.soon(0);
    expect(vi.getTimerCount()).toBe(0);
  });
});

it('makes the context that reaches gc at its first collection, one for every reclaimer', async () => {
  // A fresh module: no reclaimer of it has collected yet.
  vi.resetModules();
  const { createReclaimer: create } = await import('./reclaim.js');
  const before = made.contexts;
  const [first, second] = [create(60_000), create(60_000)];
  // A start makes two reclaimers (the app's and the event streams') and collects nothing.
  expect(made.contexts - before).toBe(0);
  const batch = await droppedBatch();
  first.soon();
  first.due();
  expect(batch.deref()).toBeUndefined();
  const another = await droppedBatch();
  second.soon();
  second.due();
  expect(another.deref()).toBeUndefined();
  expect(made.contexts - before).toBe(1);
});

it('collects nothing, and throws nothing, where the new context has no gc; it asks once', async () => {
  vi.resetModules();
  const { createReclaimer: create } = await import('./reclaim.js');
  made.withoutGc = true;
  try {
    const before = made.contexts;
    const reclaimer = create(60_000);
    for (let i = 0; i < 2; i++) {
      reclaimer.soon();
      expect(() => reclaimer.due()).not.toThrow();
    }
    expect(made.contexts - before).toBe(1);
  } finally {
    made.withoutGc = false;
  }
});

it('tells a run of large bodies as it starts, and once none has come for the quiet time, before that collection', async () => {
  const batch = await droppedBatch();
  // Looked at when told (which keeps it to the end of that job), where `batch` is not.
  const probe = await droppedBatch();
  await onTestClock(async () => {
    const told: { flowing: boolean; collected: boolean }[] = [];
    const reclaim = createReclaimer(20, {
      budgetBytes: 16_000_000,
      quietMs: 1_000,
      flowing: (flowing) => told.push({ flowing, collected: probe.deref() === undefined }),
    });
    reclaim.soon(1_500_000);
    reclaim.soon(1_500_000);
    expect(told).toEqual([{ flowing: true, collected: false }]);
    vi.advanceTimersByTime(999);
    reclaim.soon(1_500_000);
    vi.advanceTimersByTime(999);
    expect(told).toHaveLength(1);
    await nextJob();
    vi.advanceTimersByTime(1);
    // Told first, so that the collection is made under the heap's limits for quiet times.
    expect(told).toEqual([
      { flowing: true, collected: false },
      { flowing: false, collected: false },
    ]);
    expect(batch.deref()).toBeUndefined();
    expect(vi.getTimerCount()).toBe(0);
    // The next large body starts another run.
    reclaim.soon(1_500_000);
    expect(told.map((t) => t.flowing)).toEqual([true, false, true]);
  });
});

it("does not end a run at a collection within it: the run's end is told a quiet time after its last body, and collected again", async () => {
  const first = await droppedBatch();
  await onTestClock(async () => {
    const told: boolean[] = [];
    const reclaim = createReclaimer(20, {
      budgetBytes: 3_000_000,
      quietMs: 1_000,
      flowing: (flowing) => told.push(flowing),
    });
    // Under half the budget: collected only when no other follows.
    reclaim.soon(1_400_000);
    vi.advanceTimersByTime(500);
    expect(first.deref()).toBeDefined();
    await nextJob();
    // The budget reached: collected its delay later, and the run goes on.
    reclaim.soon(1_600_000);
    vi.advanceTimersByTime(20);
    expect(first.deref()).toBeUndefined();
    expect(told).toEqual([true]);
    const second = await droppedBatch();
    vi.advanceTimersByTime(979);
    expect(told).toEqual([true]);
    expect(second.deref()).toBeDefined();
    await nextJob();
    vi.advanceTimersByTime(1);
    expect(told).toEqual([true, false]);
    expect(second.deref()).toBeUndefined();
    expect(vi.getTimerCount()).toBe(0);
  });
});
