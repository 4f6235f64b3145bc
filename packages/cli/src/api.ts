import {
  UnreachableError,
  type Answer,
  type ClientInput,
  type Endpoint,
  isRecord,
  type Page,
  type ResponseOf,
} from '@tapline/shared';
import type { CliContext } from './context.js';
import { CliError, EXIT } from './exit-codes.js';

export type { Answer, Page } from '@tapline/shared';

const REQUEST_TIMEOUT_MS = 30_000;

/**
 * `client.request` with the CLI's signals: the CLI's promise is that `--json` and `--ndjson` show
 * the API's own output, never a re-serialisation, and Ctrl-C or a time-out ends a request.
 */
export async function request<E extends Endpoint>(
  ctx: CliContext,
  endpoint: E,
  input?: ClientInput<E>,
  timeoutMs = REQUEST_TIMEOUT_MS,
): Promise<Answer<ResponseOf<E>>> {
  // Ctrl-C aborts the Io's signal; main.ts keeps the process alive for that, so requests must stop.
  const signal = AbortSignal.any([ctx.io.signal, AbortSignal.timeout(timeoutMs)]);
  try {
    return await ctx.client.request(endpoint, input, signal);
  } catch (error) {
    if (ctx.io.signal.aborted) throw new CliError(EXIT.OK, 'interrupted');
    if (signal.aborted) throw new UnreachableError(ctx.url, 'timed out');
    throw error;
  }
}

/** The raw `data` members of a list answer, for `--ndjson`. */
export const rawItems = (answer: Answer<unknown>): unknown[] => {
  const data = isRecord(answer.json) ? answer.json.data : undefined;
  return Array.isArray(data) ? data : [];
};

/**
 * Every page of a newest-first list, from `page` on. Entries inserted while paging shift later
 * pages down; the ids already yielded are skipped, so nothing is printed twice.
 */
export async function* everyPage<T extends { readonly id: string }>(
  fetchPage: (page: number) => Promise<Answer<Page<T>>>,
  firstPage = 1,
): AsyncGenerator<Answer<Page<T>> & { readonly fresh: readonly T[]; readonly freshRaw: readonly unknown[] }> {
  const seen = new Set<string>();
  for (let page = firstPage; ; page++) {
    const answer = await fetchPage(page);
    const raw = rawItems(answer);
    const fresh: T[] = [];
    const freshRaw: unknown[] = [];
    answer.data.data.forEach((item, i) => {
      if (seen.has(item.id)) return;
      seen.add(item.id);
      fresh.push(item);
      freshRaw.push(raw[i]);
    });
    yield { ...answer, fresh, freshRaw };
    if (answer.data.data.length < answer.data.meta.limit) return;
  }
}
