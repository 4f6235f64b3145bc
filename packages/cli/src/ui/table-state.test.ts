import { makeEntry } from '@tapline/testkit/cli';
import { describe, expect, it } from 'vitest';
import { addNewer, addOlder, emptyTable } from './table-state.js';

describe('the UI table merges stream entries by id, never by the order of ids', () => {
  it('keeps a new entry whose id is smaller than every id shown (another daemon committed it late), and drops a repeat', () => {
    const shown = makeEntry({ id: '0190a000-0000-7000-8000-0000000000f0' });
    const late = makeEntry({ id: '0190a000-0000-7000-8000-000000000001' });
    const table = addOlder(emptyTable, [shown]);
    const merged = addNewer(table, [late, shown]);
    expect(merged.entries.map((e) => e.id).sort()).toEqual([late.id, shown.id]);
    expect(addNewer(merged, [late])).toBe(merged);
  });
});
