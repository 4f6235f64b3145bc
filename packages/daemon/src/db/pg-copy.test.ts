import { describe, expect, it } from 'vitest';
import { csvChunks } from './pg-copy.js';

describe("COPY's CSV, sent in pieces", () => {
  it('sends every line once, in order and ended, in pieces of about a mebibyte, never the group as one string', () => {
    // 40 rows of 100 KiB bodies: 4 MiB of CSV.
    const lines = Array.from({ length: 40 }, (_, i) => `"${i}","${'x'.repeat(100 * 1024)}"`);
    const pieces = [...csvChunks(lines)];
    expect(pieces.join('')).toBe(`${lines.join('\n')}\n`);
    expect(pieces.length).toBeGreaterThanOrEqual(3);
    for (const piece of pieces) {
      expect(piece.endsWith('\n')).toBe(true);
      expect(piece.length).toBeLessThan((1 << 20) + 110 * 1024);
    }
  });

  it('sends a line longer than a piece whole, and nothing for no lines', () => {
    const long = `"${'y'.repeat(3 << 20)}"`;
    expect([...csvChunks(['"a"', long, '"b"'])]).toEqual([`"a"\n${long}\n`, '"b"\n']);
    expect([...csvChunks([])]).toEqual([]);
  });
});
