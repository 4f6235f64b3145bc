import { once } from 'node:events';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { setImmediate as turn } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { getHeapSpaceStatistics } from 'node:v8';
import { expect, it } from 'vitest';
import {
  growthFactor,
  largeBatchesFlowing,
  limitHeap,
  underStartFlags,
  YOUNG_GENERATION_CAP_BYTES,
} from './heap-limits.js';
import { START_GROWTH_FACTOR } from './start-flags.js';

// V8's flags are the process's; this file runs in a fork of its own (vitest's forks pool), and the
// stop function puts them back all the same.

const newSpace = () => getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;

/** Garbage that mostly survives a scavenge or two, the pattern that makes V8 grow its young generation. */
async function churn(turns: number): Promise<number> {
  const kept: unknown[][] = [];
  let largest = newSpace();
  for (let t = 0; t < turns; t++) {
    kept.push(Array.from({ length: 5_000 }, (_, i) => ({ t, i, text: `value ${t}-${i}` })));
    if (kept.length > 16) kept.shift();
    largest = Math.max(largest, newSpace());
    await turn();
  }
  return largest;
}

it("keeps a served daemon's young generation at its cap, where V8 would double it to 32 MiB", async () => {
  // A fresh fork starts well under the cap (8 MiB, the runner's own start having grown it once).
  expect(newSpace()).toBeLessThan(YOUNG_GENERATION_CAP_BYTES);
  const stop = limitHeap();
  try {
    const largest = await churn(600);
    // Grown to the cap (the churn is enough to make V8 grow it), never past it.
    expect(largest).toBe(YOUNG_GENERATION_CAP_BYTES);
    expect(newSpace()).toBeLessThanOrEqual(YOUNG_GENERATION_CAP_BYTES);
  } finally {
    stop();
  }
});

it("puts the limits back after making something under the start flags (the launcher's code cache)", async () => {
  const stop = limitHeap();
  try {
    await churn(300);
    expect(underStartFlags(() => 'made')).toBe('made');
    // Under V8's own growth factor again, this churn would double the young generation past the cap.
    const largest = await churn(600);
    expect(largest).toBeLessThanOrEqual(YOUNG_GENERATION_CAP_BYTES);
  } finally {
    stop();
  }
});

/** A thread that makes a batch-like tree of garbage and answers its young generation's capacity (one semi-space). */
const THREAD = `
const { getHeapSpaceStatistics } = require('node:v8');
const { parentPort } = require('node:worker_threads');
let live = [];
for (let round = 0; round < 60; round++) {
  live = [];
  for (let i = 0; i < 20000; i++) live.push({ text: 'value ' + i, pair: [i, i + 1] });
}
const space = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
parentPort.postMessage(space.space_used_size + space.space_available_size);
`;

/** The capacity of one semi-space in a thread started with a young generation of `youngMb`. */
async function threadSemiSpace(youngMb: number): Promise<number> {
  const thread = new Worker(THREAD, { eval: true, resourceLimits: { maxYoungGenerationSizeMb: youngMb } });
  try {
    const [capacity] = (await once(thread, 'message')) as [number];
    return capacity;
  } finally {
    await thread.terminate();
  }
}

it("starts a thread's young generation at the thread's own cap, which the lean heap's factor would keep it from growing to", async () => {
  const MIB = 1024 * 1024;
  const stop = limitHeap();
  try {
    await churn(300); // the event loop at its cap: the factor, every thread's, is 1
    // The batch worker's 32 MB (ingest/prepare-pool.ts): at V8's 1 MiB start it scavenged a batch's tree over and over.
    expect(await threadSemiSpace(32)).toBeGreaterThanOrEqual(8 * MIB);
    // A thread with a small cap (the checkpoint thread's 2 MB) keeps it.
    expect(await threadSemiSpace(2)).toBeLessThanOrEqual(MIB);
  } finally {
    stop();
  }
});

it('grows each semi-space to half the cap, whether or not V8 has released the second one', () => {
  const MIB = 1024 * 1024;
  const semi = (used: number, available: number) => ({
    space_used_size: used * MIB,
    space_available_size: available * MIB,
  });
  // After an idle spell V8 keeps one 1 MiB semi-space committed: grown 8 times, both make 16 MiB, not 32.
  expect(growthFactor(semi(0.2, 0.8))).toBe(8);
  expect(growthFactor(semi(3, 1))).toBe(2);
  // At the cap (two semi-spaces of 8 MiB) and past it: no growth.
  expect(growthFactor(semi(6, 2))).toBe(1);
  expect(growthFactor(semi(15, 1))).toBe(1);
});

it("grows a start's first semi-space (V8's 1 MiB) to half the cap in one step", () => {
  // The launcher's factor (start-flags.ts) is the one the lean heap would set there, so a lean
  // heap taking over from the start never finds its young generation past the cap.
  expect(growthFactor({ space_used_size: 0, space_available_size: 1024 * 1024 })).toBe(START_GROWTH_FACTOR);
});

/**
 * Runs `measure` beside live data that every full collection marks, some 60 MB: large enough that
 * 10% over it is past V8's least step of the old generation's limit, so that the two slacks tell
 * apart. With `lean`, under the lean heap, put back after.
 */
async function besideLiveData(measure: () => Promise<void>, lean = true): Promise<void> {
  const live = Array.from({ length: 1_000_000 }, (_, i) => ({ i, text: `live ${i}` }));
  const stop = lean ? limitHeap() : undefined;
  try {
    await measure();
  } finally {
    stop?.();
  }
  // Held to here, through every measure.
  expect(live).toHaveLength(1_000_000);
}

/** A `gc` entry's kind (its `detail`, which this version of Node's types does not declare). */
function gcKind(entry: object): number | undefined {
  const detail: unknown = Reflect.get(entry, 'detail');
  return typeof detail === 'object' && detail !== null && 'kind' in detail && typeof detail.kind === 'number'
    ? detail.kind
    : undefined;
}

/**
 * Full collections V8 makes while a batch-like churn promotes its garbage to the old generation
 * (each tree survives a few turns, as a batch's records do while it is stored), beside live data
 * that every full collection has to mark.
 */
async function fullCollections(turns: number): Promise<number> {
  let full = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) if (gcKind(entry) === constants.NODE_PERFORMANCE_GC_MAJOR) full++;
  });
  observer.observe({ entryTypes: ['gc'] });
  const trees: unknown[][] = [];
  for (let t = 0; t < turns; t++) {
    trees.push(Array.from({ length: 20_000 }, (_, i) => ({ t, i, text: `value ${t}-${i}` })));
    if (trees.length > 8) trees.shift();
    await turn();
  }
  // gc entries are reported on a later turn.
  await turn();
  await turn();
  observer.disconnect();
  return full;
}

/** Full collections before a run of large batches, during it and after it, 300 turns each. */
async function acrossARun(): Promise<{ before: number; flowing: number; after: number }> {
  const before = await fullCollections(300);
  largeBatchesFlowing(true);
  const flowing = await fullCollections(300);
  largeBatchesFlowing(false);
  return { before, flowing, after: await fullCollections(300) };
}

it('lets the old generation grow to twice its live data while large batches flow, and 10% over it once they stop', () =>
  besideLiveData(async () => {
    const { before: lean, flowing, after: leanAgain } = await acrossARun();
    // At 10% over what each full collection left, this churn is collected whole every few turns
    // (about 15 times in 300); at twice it, a third as often.
    expect(flowing * 2).toBeLessThan(lean);
    expect(flowing * 2).toBeLessThan(leanAgain);
  }));

it('leaves the heap alone when the lean heap is off', () =>
  besideLiveData(async () => {
    // V8's own slack already: told of large batches, nothing changes (nothing to put back either).
    const { before, flowing, after } = await acrossARun();
    // V8's own slack throughout: a change of the flag without the lean heap shows when it sets 10%.
    expect(flowing).toBeGreaterThan(before / 2 - 2);
    expect(after).toBeLessThan(Math.max(2 * before, before + 4));
  }, false));

it("keeps the batches' slack through a thread's start and the code cache's making while large batches flow", () =>
  besideLiveData(async () => {
    const lean = await fullCollections(300);
    largeBatchesFlowing(true);
    // Each sets the flags again: the code cache's making, and the batch worker's start (with the
    // first batch, after the run began).
    underStartFlags(() => 'made');
    expect((await fullCollections(300)) * 2).toBeLessThan(lean);
    const thread = new Worker('', { eval: true });
    await once(thread, 'online');
    await thread.terminate();
    expect((await fullCollections(300)) * 2).toBeLessThan(lean);
    largeBatchesFlowing(false);
  }));
