import { describe, expect, it } from 'vitest';
import { blockKey, blocksOf, ClosedBlocks } from './closed-blocks.js';

const MINUTE = 60_000;

describe('blocks of a window part (docs/decisions.md §21.9)', () => {
  it('cut minutes into aligned blocks that cover the part exactly, few of them', () => {
    const base = Date.parse('2026-05-05T10:00:00.000Z');
    for (let from = 0; from < 60; from++) {
      for (let to = from + 1; to <= 60; to++) {
        const blocks = blocksOf({ since: base + from * MINUTE, until: base + to * MINUTE, span: 1 });
        let at = base + from * MINUTE;
        for (const block of blocks) {
          expect(block.since).toBe(at);
          const size = (block.until - block.since) / MINUTE;
          expect(Number.isInteger(Math.log2(size))).toBe(true);
          expect((block.since / MINUTE) % size).toBe(0);
          at = block.until;
        }
        expect(at).toBe(base + to * MINUTE);
        expect(blocks.length).toBeLessThanOrEqual(12);
      }
    }
  });

  it('keep an hour or day part whole', () => {
    const part = { since: 0, until: 5 * 3_600_000, span: 60 as const };
    expect(blocksOf(part)).toEqual([part]);
  });

  it('are forgotten when the counter moved, and the least recently used go past the budget', () => {
    const kept = new ClosedBlocks<string>(1000);
    const block = (n: number) => blockKey({ since: n * MINUTE, until: (n + 1) * MINUTE, span: 1 as const });
    kept.set('s', 1, block(0), 'a', 400);
    expect(kept.get('s', 1, block(0))).toBe('a');
    expect(kept.get('s', 2, block(0))).toBeUndefined();
    expect(kept.get('s', 1, block(0))).toBeUndefined();
    kept.set('s', 1, block(1), 'b', 400);
    kept.set('s', 1, block(2), 'c', 400);
    expect(kept.get('s', 1, block(1))).toBe('b');
    kept.set('s', 1, block(3), 'd', 400);
    expect(kept.get('s', 1, block(2))).toBeUndefined();
    expect(kept.get('s', 1, block(1))).toBe('b');
    expect(kept.get('other', 1, block(1))).toBeUndefined();
    expect(kept.size).toBeLessThanOrEqual(1000);
  });
});
