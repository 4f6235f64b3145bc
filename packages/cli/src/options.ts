import { InvalidArgumentError, Option, type Command } from 'commander';
import { HTTP_METHODS, LevelParam, LEVELS, MAX_PAGE_LIMIT, Method, StatusFilter } from '@tapline/shared';
import type { z } from 'zod';

/**
 * A commander parser for a whole number in [min, max]; a bad value is a usage error (exit 2).
 * The message reads after the flag's name (`--page must be a whole number from 1`); an upper
 * bound nobody reaches (the daemon's own for pages) is named only to a value past it.
 */
export const integer =
  (min: number, max = Number.MAX_SAFE_INTEGER) =>
  (text: string) => {
    const n = /^\d+$/.test(text.trim()) ? Number(text) : Number.NaN;
    if (Number.isSafeInteger(n) && n >= min && n <= max) return n;
    const upTo = max < Number.MAX_SAFE_INTEGER || n > max ? ` to ${max}` : '';
    throw new InvalidArgumentError(`must be a whole number from ${min}${upTo}`);
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

/** Checks a flag with the contract's own schema, so the CLI refuses exactly what the daemon would. */
export const checkedBy = (schema: z.ZodType, what: string) => (text: string) => {
  if (!schema.safeParse(text).success) throw new InvalidArgumentError(what);
  return text;
};

/** The flags that filter traffic, alike on `traffic list`, `traffic tail` (and their `--where`). */
export interface FilterFlags {
  readonly method?: string;
  readonly status?: string;
  readonly level?: string;
  readonly domain?: string;
  readonly path?: string;
  /** A filter expression (docs/filter-language.md), sent as `q`. */
  readonly where?: string;
}

/**
 * `--method`, `--status`, `--level`, `--domain`, `--path` and `--where`. Method and level carry
 * their values as choices, for help and shell completion, but parse in any case as the API does.
 */
export function filterOptions(cmd: Command): Command {
  return cmd
    .addOption(
      new Option('--method <method>', 'only this method (any case)')
        .choices(HTTP_METHODS)
        .argParser(checkedBy(Method, `must be one of ${HTTP_METHODS.join(', ')}`)),
    )
    .option(
      '--status <status>',
      'a status code such as 404, or a class such as 5xx',
      checkedBy(StatusFilter, 'must be a status such as 404 or a class such as 5xx'),
    )
    .addOption(
      new Option('--level <level>', 'only this level (any case)')
        .choices(LEVELS)
        .argParser(checkedBy(LevelParam, `must be one of ${LEVELS.join(', ')}`)),
    )
    .option('--domain <name>', 'only requests to this domain, such as shop.example.com')
    .option('--path <name>', 'only requests to this path, such as /api/orders')
    .option('--where <expr>', 'a filter expression, such as "status>=500 or latency>1000" (docs/filter-language.md)');
}
