import { formatLatency, formatLocalTime, trafficTarget, truncate, type HttpTraffic } from '@tapline/shared';

/**
 * One traffic entry as the columns of a line, shared by `tapline traffic tail` (picocolors) and
 * the terminal UI (Ink colours), so both read alike. Tones name colours both can apply.
 */
export type Tone = 'red' | 'yellow' | 'green' | 'cyan' | 'magenta' | 'blue' | 'gray';

export interface EntryCells {
  readonly time: string;
  readonly method: string;
  readonly status: string;
  readonly level: string;
  readonly latency: string;
  readonly target: string;
}

/** Column widths of every cell but the last, which takes the rest of the line. */
export const CELL_WIDTHS = { time: 12, method: 6, status: 3, level: 7, latency: 7 } as const;

/** Local time of day with milliseconds (the date part of `traffic list` is noise in a live view). */
export const clockTime = (iso: string): string => formatLocalTime(iso).slice(11);

export function entryCells(entry: HttpTraffic): EntryCells {
  return {
    time: clockTime(entry.createdAt),
    method: entry.method,
    status: String(entry.status),
    level: entry.level,
    latency: formatLatency(entry.elapsedTime),
    target: trafficTarget(entry),
  };
}

export function levelTone(level: string): Tone {
  if (level === 'FATAL') return 'red';
  if (level === 'WARNING') return 'yellow';
  return 'green';
}

export function statusTone(status: number): Tone {
  if (status >= 500) return 'red';
  if (status >= 400) return 'yellow';
  if (status >= 300) return 'cyan';
  return 'green';
}

export function methodTone(method: string): Tone {
  switch (method) {
    case 'GET':
      return 'blue';
    case 'POST':
      return 'green';
    case 'DELETE':
      return 'red';
    default:
      return 'magenta';
  }
}

/** Latency colours: slow is worth noticing before it fails. */
export function latencyTone(ms: number): Tone | undefined {
  if (ms >= 1000) return 'red';
  if (ms >= 300) return 'yellow';
  return undefined;
}

/** Fits text into `width` columns, marking a cut with an ellipsis. */
export const fit = (text: string, width: number): string => truncate(text, Math.max(0, width));
