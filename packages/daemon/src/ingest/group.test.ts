import { describe, expect, it } from 'vitest';
import { groupLength, MAX_CONFLICT_RETRIES, recoveryOf } from './group.js';

const requests = (...sizes: number[]) => sizes.map((n) => ({ records: Array.from({ length: n }) }));

describe("the group commit's decisions", () => {
  it('takes the first request whatever its size, then more while the group is under the record limit', () => {
    expect(groupLength(requests(), 10)).toBe(0);
    expect(groupLength(requests(25, 1), 10)).toBe(1);
    expect(groupLength(requests(9, 1, 1), 10)).toBe(2);
    expect(groupLength(requests(5, 4, 1, 7), 10)).toBe(3);
    expect(groupLength(requests(1, 1, 1), 10)).toBe(3);
  });

  it('retries a lost race up to MAX_CONFLICT_RETRIES times, refuses all on an outage, else blames requests one by one', () => {
    const deadlock = Object.assign(new Error('deadlock detected'), { code: '40P01' });
    const down = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const bug = new Error('a constraint');
    expect(recoveryOf(deadlock, MAX_CONFLICT_RETRIES - 1, false, 3)).toBe('retry');
    expect(recoveryOf(deadlock, MAX_CONFLICT_RETRIES, false, 3)).toBe('one-by-one');
    expect(recoveryOf(down, 0, true, 3)).toBe('refuse-all');
    expect(recoveryOf(bug, 0, true, 3)).toBe('afresh');
    expect(recoveryOf(bug, 0, false, 1)).toBe('refuse');
    expect(recoveryOf(bug, 0, false, 2)).toBe('one-by-one');
  });
});
