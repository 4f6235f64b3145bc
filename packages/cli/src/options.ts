import { InvalidArgumentError, type Command } from 'commander';
import { MAX_PAGE_LIMIT } from '@tapline/shared';

/** A commander parser for a whole number in [min, max]; a bad value is a usage error (exit 2). */
export const integer = (min: number, max = Number.MAX_SAFE_INTEGER) => (text: string) => {
  const n = /^\d+$/.test(text.trim()) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) throw new InvalidArgumentError(`expected a whole number from ${min} to ${max}`);
  return n;
};

export interface PagingOptions {
  readonly page?: number;
  readonly limit?: number;
  readonly all?: boolean;
}

/** `--page`, `--limit` and `--all`, alike on every list command. */
export function pagingOptions(cmd: Command): Command {
  return cmd
    .option('--page <n>', 'page number (default 1)', integer(1))
    .option('--limit <n>', `entries per page, up to ${MAX_PAGE_LIMIT} (default 10)`, integer(1, MAX_PAGE_LIMIT))
    .option('--all', 'every page from --page on (with --ndjson, streamed page by page)');
}

/** `limit` for the query: as given, else 100 with `--all` (fewer round trips), else the API's default. */
export const pageLimit = (opts: PagingOptions): { limit?: number } => {
  const limit = opts.limit ?? (opts.all ? 100 : undefined);
  return limit ? { limit } : {};
};
