import { describe, expect, it } from 'vitest';
import { paginate } from './pagination.js';

/** A count that answers only when told to, and a record of what was asked. */
function gated(total: number) {
  const asked: string[] = [];
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return {
    asked,
    open,
    count: async () => {
      asked.push('count');
      await opened;
      return total;
    },
    rows: async (limit: number, offset: number) => {
      asked.push(`rows ${limit} ${offset}`);
      return Array.from({ length: Math.max(0, Math.min(limit, total - offset)) }, (_, i) => offset + i);
    },
  };
}

describe('paginate', () => {
  it('reads the first page while the total is being counted', async () => {
    const g = gated(120);
    const page = paginate({ page: 1, limit: 50 }, g.count, g.rows);
    await new Promise((resolve) => setImmediate(resolve));
    expect(g.asked).toEqual(['count', 'rows 50 0']); // both asked before the count answered
    g.open();
    expect(await page).toEqual({
      data: Array.from({ length: 50 }, (_, i) => i),
      meta: { total: 120, page: 1, limit: 50 },
    });
  });

  it('counts first on a later page, and reads no rows past the end', async () => {
    const g = gated(120);
    g.open();
    expect(await paginate({ page: 3, limit: 50 }, g.count, g.rows)).toEqual({
      data: Array.from({ length: 20 }, (_, i) => 100 + i),
      meta: { total: 120, page: 3, limit: 50 },
    });
    expect(await paginate({ page: 4, limit: 50 }, g.count, g.rows)).toEqual({
      data: [],
      meta: { total: 120, page: 4, limit: 50 },
    });
    expect(g.asked).toEqual(['count', 'rows 50 100', 'count']);
  });
});
