import { describe, expect, it } from 'vitest';
import { BATCH_TARGET_MS, BatchSizer, longestSleepAfter } from './pace.js';

describe('the pruner sizes its transactions by time', () => {
  it('moves toward the batch that takes the target, at most doubling or halving per batch', () => {
    const sizer = new BatchSizer();
    expect(sizer.size).toBe(50);
    // 0.05 ms an entry: 200 entries fill the target; from 50 it doubles, then settles.
    const perEntry = BATCH_TARGET_MS / 200;
    const sizes = [];
    for (let i = 0; i < 5; i++) {
      sizer.took(sizer.size, sizer.size * perEntry);
      sizes.push(sizer.size);
    }
    expect(sizes).toEqual([100, 200, 200, 200, 200]);
    // The database slows down (cold pages): 1 ms an entry. Halving, down to 25 entries (a
    // transaction's fixed cost would make smaller ones slow the prune for little).
    const sizes2 = [];
    for (let i = 0; i < 4; i++) {
      sizer.took(sizer.size, sizer.size * 1);
      sizes2.push(sizer.size);
    }
    expect(sizes2).toEqual([100, 50, 25, 25]);
  });

  it('stays within 1,000 entries when they cost nothing, and ignores a batch that removed none', () => {
    const sizer = new BatchSizer();
    for (let i = 0; i < 20; i++) sizer.took(sizer.size, 0);
    expect(sizer.size).toBe(1000);
    sizer.took(0, 500);
    expect(sizer.size).toBe(1000);
  });

  it('times the last, short batch of a source like the others', () => {
    const sizer = new BatchSizer();
    sizer.took(5, 5); // 1 ms an entry: 10 fit in the target, and 25 is as far as one step goes
    expect(sizer.size).toBe(25);
    sizer.took(5, 1); // 0.2 ms an entry: 50 fit
    expect(sizer.size).toBe(50);
  });
});

describe("the gap a waiting writer needs (SQLite's busy handler)", () => {
  it('is the sleep it can be in when a transaction of that length ends', () => {
    // It looks at 0, 1, 3, 8, 18, 33, 53, 78, 103, 128, 178, 228, 328 ms, then every 100 ms; a
    // look at the very end may still find the lock taken.
    expect(longestSleepAfter(0.5)).toBe(1);
    expect(longestSleepAfter(1)).toBe(2);
    expect(longestSleepAfter(7)).toBe(5);
    expect(longestSleepAfter(8)).toBe(10);
    expect(longestSleepAfter(30)).toBe(15);
    expect(longestSleepAfter(40)).toBe(20);
    expect(longestSleepAfter(120)).toBe(25);
    expect(longestSleepAfter(150)).toBe(50);
    expect(longestSleepAfter(5000)).toBe(100);
  });
});
