import { createColors } from 'picocolors';
import { describe, expect, it } from 'vitest';
import { renderTable, type Column } from './table.js';

type Row = { name: string; path: string; id: string };
const rows: Row[] = [
  { name: 'a', path: '/a/very/long/path/that/goes/on', id: '1111' },
  { name: 'bbb', path: '/b', id: '2' },
];
const columns: Column<Row>[] = [
  { header: 'NAME', value: (r) => r.name },
  { header: 'PATH', value: (r) => r.path, flex: true },
  { header: 'ID', value: (r) => r.id, optional: true, align: 'right' },
];
const plain = createColors(false);

describe('renderTable', () => {
  it('piped: aligns, cuts nothing and pads no last column', () => {
    expect(renderTable(rows, columns, { width: Number.POSITIVE_INFINITY, colors: plain })).toEqual([
      'NAME  PATH                              ID',
      'a     /a/very/long/path/that/goes/on  1111',
      'bbb   /b                                 2',
    ]);
  });

  it('on a terminal: drops optional columns, then cuts the flex column to fit', () => {
    const lines = renderTable(rows, columns, { width: 20, colors: plain });
    expect(lines).toEqual(['NAME  PATH', 'a     /a/very/long/…', 'bbb   /b']);
    expect(lines.every((l) => l.length <= 20)).toBe(true);
  });
});
