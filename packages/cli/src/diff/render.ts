import {
  type Difference,
  formatLatency,
  formatLocalTime,
  recordUrl,
  truncate,
  type HttpTrafficRecord,
  type JsonValue,
} from '@tapline/shared';
import type { Colors } from '../context.js';

const MARK = { changed: '~', added: '+', removed: '-' } as const;

const show = (value: JsonValue | undefined) => (value === undefined ? '' : JSON.stringify(value));

/** `12ms -> 340ms (+328ms)`: timing reads best as a change. */
function changeText(d: Difference): string {
  if (d.path === 'elapsedTime' && typeof d.a === 'number' && typeof d.b === 'number') {
    const delta = d.b - d.a;
    return `${formatLatency(d.a)} -> ${formatLatency(d.b)} (${delta >= 0 ? '+' : '-'}${formatLatency(Math.abs(delta))})`;
  }
  if (d.kind === 'added') return show(d.b);
  if (d.kind === 'removed') return show(d.a);
  return `${show(d.a)} -> ${show(d.b)}`;
}

export const describeExchange = (label: string, r: HttpTrafficRecord) =>
  `${label} ${r.id}  ${formatLocalTime(r.createdAt)}  ${r.method} ${r.status} ${recordUrl(r)}`;

/**
 * The differences as aligned lines, `~` changed, `+` only in B, `-` only in A (coloured yellow,
 * green, red on a terminal). Values are JSON; on a terminal each line is cut to `width`.
 */
export function diffLines(differences: readonly Difference[], options: { colors: Colors; width: number }): string[] {
  const c = options.colors;
  const paint = { changed: c.yellow, added: c.green, removed: c.red };
  const pathWidth = Math.min(48, Math.max(0, ...differences.map((d) => d.path.length)));
  return differences.map((d) => {
    const line = `${MARK[d.kind]} ${d.path.padEnd(pathWidth)}  ${changeText(d)}`;
    return paint[d.kind](Number.isFinite(options.width) ? truncate(line, options.width) : line);
  });
}
