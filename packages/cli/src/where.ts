import { pointAtColumn, tryParseFilter } from '@tapline/shared';
import { usage } from './exit-codes.js';

/**
 * `--where EXPR`, trimmed, or undefined when empty. A mistake is a usage error (exit 2) naming
 * the column, with the expression and a caret under it, before anything is fetched or drawn.
 */
export function checkedWhere(text: string | undefined): string | undefined {
  const q = text?.trim() || undefined;
  if (!q) return undefined;
  const parsed = tryParseFilter(q);
  if (!parsed.ok)
    throw usage(
      `--where: ${parsed.error.reason} at column ${parsed.error.column}`,
      pointAtColumn(parsed.error).replace(/\n/g, '\n  '),
    );
  return q;
}
