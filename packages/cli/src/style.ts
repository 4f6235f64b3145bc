import { statusClass } from '@tapline/shared';
import type { Colors } from './context.js';

/** FATAL red, WARNING yellow, INFO green: the colours the UI uses too. */
export function paintLevel(c: Colors, level: string, text = level): string {
  if (level === 'FATAL') return c.red(text);
  if (level === 'WARNING') return c.yellow(text);
  return c.green(text);
}

export function paintStatus(c: Colors, status: number, text = String(status)): string {
  switch (statusClass(status)) {
    case '2xx':
      return c.green(text);
    case '3xx':
      return c.cyan(text);
    case '4xx':
      return c.yellow(text);
    case '5xx':
      return c.red(text);
    default:
      return text;
  }
}
