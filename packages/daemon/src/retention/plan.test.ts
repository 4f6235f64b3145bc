import { describe, expect, it } from 'vitest';
import { ageCutoff, overBudget, passAgain, SIZE_CHECK_MS, sizeCheckDelay } from './plan.js';

describe("the pruner's decisions", () => {
  it('takes what is older than the age limit: the cutoff is now less the limit', () => {
    expect(ageCutoff(new Date('2026-01-08T00:00:00.000Z'), 7 * 24 * 3_600_000)).toBe('2026-01-01T00:00:00.000Z');
  });

  it('is over budget only past the budget, and after a prune only once grown past what it left', () => {
    expect(overBudget(1000, null, undefined)).toBe(false);
    expect(overBudget(1000, 1000, undefined)).toBe(false);
    expect(overBudget(1001, 1000, undefined)).toBe(true);
    expect(overBudget(1500, 1000, 1500)).toBe(false);
    expect(overBudget(1501, 1000, 1500)).toBe(true);
  });

  it('passes again while a pass removed entries, left the file over budget, and the file may still shrink', () => {
    const pass = { entries: 10, sizeBefore: 2000, sizeAfter: 1500, ingested: false };
    expect(passAgain(pass, 1000, true)).toBe(true);
    expect(passAgain({ ...pass, entries: 0 }, 1000, true)).toBe(false);
    expect(passAgain({ ...pass, sizeAfter: 1000 }, 1000, true)).toBe(false);
    expect(passAgain({ ...pass, sizeAfter: 1001 }, 1000, true)).toBe(true);
    // A file that does not shrink (PostgreSQL): one pass.
    expect(passAgain(pass, 1000, false)).toBe(false);
    // It did not shrink: only ingest during the pass can have hidden what it freed.
    expect(passAgain({ ...pass, sizeAfter: 2000 }, 1000, true)).toBe(false);
    expect(passAgain({ ...pass, sizeAfter: 2000, ingested: true }, 1000, true)).toBe(true);
  });

  it('looks at the size at most once per SIZE_CHECK_MS after a commit', () => {
    expect(sizeCheckDelay(0, 10_000)).toBe(0);
    expect(sizeCheckDelay(10_000, 10_000)).toBe(SIZE_CHECK_MS);
    expect(sizeCheckDelay(10_000, 10_000 + SIZE_CHECK_MS)).toBe(0);
    expect(sizeCheckDelay(10_000, 10_400)).toBe(SIZE_CHECK_MS - 400);
  });
});
