import { describe, expect, it } from 'vitest';
import { copyField, copyPieces } from './pg-copy.js';

/** What COPY's text format spells with a backslash, and what is only unusual: each a value of its own. */
const AWKWARD: unknown[] = [
  'back\\slash \\N \\. \\x41 ends in a backslash\\',
  'tab\there, line\nbreak, carriage\rreturn, \r\n both',
  '\\',
  '',
  null,
  42,
  true,
  Buffer.from([0, 1, 0xfe, 0xff]),
  { json: 'with "quotes" and \\ and \n' },
  'ünïcödé, 日本語, עברית, emoji 🧪🚀, combining e\u0301, zero\u200bwidth, \u2028separator',
  // Lone surrogates: UTF-8 has no spelling for them, and both ways write U+FFFD.
  'lone \ud83d high, lone \udc00 low',
];

/** The rows' text as the daemon made it before decisions §20.25: each line joined, the lines joined, as UTF-8. */
const joined = (rows: readonly (readonly unknown[])[]) =>
  Buffer.from(rows.map((row) => `${row.map(copyField).join('\t')}\n`).join(''), 'utf8');

const piecesOf = (rows: readonly (readonly unknown[])[], bytes?: number) => [
  ...copyPieces(rows, rows[0]?.length ?? 0, (row, i) => row[i], bytes),
];

describe("COPY's rows, written into pieces of bytes", () => {
  it('writes the very bytes of the lines joined, awkward values included, in pieces of about 64 KiB', () => {
    // 400 rows of every awkward value and a 10 KiB body: about 4 MiB.
    const rows = Array.from({ length: 400 }, (_, i) => [
      String(i),
      ...AWKWARD.slice(i % AWKWARD.length),
      ...AWKWARD.slice(0, i % AWKWARD.length),
      'x'.repeat(10 * 1024),
    ]);
    const pieces = piecesOf(rows);
    expect(Buffer.concat(pieces).equals(joined(rows))).toBe(true);
    expect(pieces.length).toBeGreaterThanOrEqual(60);
    for (const piece of pieces) expect(piece.length).toBeLessThanOrEqual(1 << 16);
  });

  it('gives a field longer than a piece a piece of its own, and sends nothing for no rows', () => {
    const long = 'y'.repeat(3 << 20);
    const rows = [
      ['a', 'é'],
      [long, 'b'],
      ['c', '日本'],
    ];
    const pieces = piecesOf(rows, 64);
    expect(Buffer.concat(pieces).equals(joined(rows))).toBe(true);
    expect(pieces.map((p) => p.length)).toEqual([5, (3 << 20) + 1, 11]);
    expect(piecesOf([])).toEqual([]);
  });

  it('makes a piece only when it is asked for, from the rows it needs', () => {
    let made = 0;
    function* rows(): Generator<string[]> {
      for (let i = 0; i < 100; i++) {
        made++;
        yield [String(i), 'x'.repeat(10 * 1024)];
      }
    }
    const pieces = copyPieces(rows(), 2, (row, i) => row[i]);
    expect(made).toBe(0);
    pieces.next();
    // Rows of 10 KiB: the seventh's body passes 64 KiB and ends the first piece.
    expect(made).toBe(7);
    expect([...pieces].length).toBeGreaterThan(10);
    expect(made).toBe(100);
  });
});
