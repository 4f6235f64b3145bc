import { describe, expect, it } from 'vitest';
import { copyChunks } from './pg-copy.js';

describe("COPY's rows, sent in pieces", () => {
  it('sends every line once, in order and ended, in pieces of about 64 KiB, never the group as one string', () => {
    // 400 rows of 10 KiB bodies: 4 MiB of CSV.
    const lines = Array.from({ length: 400 }, (_, i) => `"${i}","${'x'.repeat(10 * 1024)}"`);
    const pieces = [...copyChunks(lines)];
    expect(pieces.join('')).toBe(`${lines.join('\n')}\n`);
    expect(pieces.length).toBeGreaterThanOrEqual(50);
    for (const piece of pieces) {
      expect(piece.endsWith('\n')).toBe(true);
      expect(piece.length).toBeLessThan((1 << 16) + 11 * 1024);
    }
  });

  it('makes a piece only when it is asked for, from the lines it needs', () => {
    let made = 0;
    function* lines(): Generator<string> {
      for (let i = 0; i < 100; i++) {
        made++;
        yield `"${i}","${'x'.repeat(10 * 1024)}"`;
      }
    }
    const pieces = copyChunks(lines());
    expect(made).toBe(0);
    pieces.next();
    // 10 KiB lines: the seventh passes 64 KiB and ends the first piece.
    expect(made).toBe(7);
    expect([...pieces].length).toBeGreaterThan(10);
    expect(made).toBe(100);
  });

  it('sends a line longer than a piece whole, and nothing for no lines', () => {
    const long = `"${'y'.repeat(3 << 20)}"`;
    expect([...copyChunks(['"a"', long, '"b"'])]).toEqual([`"a"\n${long}\n`, '"b"\n']);
    expect([...copyChunks([])]).toEqual([]);
  });
});
