import { truncate } from '@tapline/shared';
import type { Colors } from './context.js';

export interface Column<T> {
  readonly header: string;
  readonly value: (row: T) => string;
  /** Colours an already padded cell; never changes its width. */
  readonly color?: (row: T, cell: string) => string;
  readonly align?: 'left' | 'right';
  /** The one column that shrinks (and is cut) to fit the terminal; the last column by default. */
  readonly flex?: boolean;
  /** A shorter form of the value, used on a terminal too narrow for every column in full. */
  readonly compact?: (row: T) => string;
  /** Left out on a terminal too narrow to show it beside an uncut flex column, even compacted. */
  readonly optional?: boolean;
}

const GAP = '  ';
const MIN_FLEX = 4;

/**
 * A borderless, aligned table as lines. On a terminal it fits `width` by cutting the flex column;
 * piped (`width` Infinity) nothing is cut, and the last column is not padded.
 */
export function renderTable<T>(
  rows: readonly T[],
  all: readonly Column<T>[],
  options: { width: number; colors: Colors },
): string[] {
  const natural = (c: Column<T>) => Math.max(c.header.length, ...rows.map((r) => c.value(r).length));
  const fits = (cols: readonly Column<T>[]) =>
    cols.reduce((sum, c) => sum + natural(c) + GAP.length, 0) <= options.width;
  // Narrowing in steps: compact forms first, then leave out optional columns.
  const compacted = fits(all) ? all : all.map((c) => (c.compact ? { ...c, value: c.compact } : c));
  const columns = fits(compacted) ? compacted : compacted.filter((c) => !c.optional);
  const cells = rows.map((row) => columns.map((c) => c.value(row)));
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((r) => r[i]?.length ?? 0)));
  const flexIndex = Math.max(
    0,
    columns.findIndex((c) => c.flex) === -1 ? columns.length - 1 : columns.findIndex((c) => c.flex),
  );
  if (Number.isFinite(options.width)) {
    const fixed =
      widths.reduce((sum, w, i) => (i === flexIndex ? sum : sum + w), 0) + GAP.length * (columns.length - 1);
    widths[flexIndex] = Math.min(widths[flexIndex] ?? 0, Math.max(MIN_FLEX, options.width - fixed));
  }
  const line = (values: readonly string[], paint: (i: number, cell: string) => string) =>
    values
      .map((value, i) => {
        const width = widths[i] ?? 0;
        const cut = truncate(value, width);
        const last = i === values.length - 1;
        const padded = columns[i]?.align === 'right' ? cut.padStart(width) : last ? cut : cut.padEnd(width);
        return paint(i, padded);
      })
      .join(GAP);
  const c = options.colors;
  return [
    line(
      columns.map((col) => col.header),
      (_, cell) => c.bold(cell),
    ),
    ...rows.map((row, r) => line(cells[r] ?? [], (i, cell) => columns[i]?.color?.(row, cell) ?? cell)),
  ];
}
