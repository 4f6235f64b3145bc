import { ApiError, buildPath, ErrorBody, queryString, UnreachableError, type ClientInput, type Endpoint, type ResponseOf } from '@tapline/shared';
import type { CliContext } from './context.js';
import { CliError, EXIT } from './exit-codes.js';

const REQUEST_TIMEOUT_MS = 30_000;

/** A parsed answer, with the daemon's own text kept so `--json` can print it unchanged. */
export interface Answer<T> {
  readonly data: T;
  /** The response body exactly as the daemon sent it. */
  readonly text: string;
  /** `text` parsed, not passed through the contract's schema (which drops unknown members). */
  readonly json: unknown;
}

/**
 * Calls an endpoint of the contract like `client.call`, but also keeps the raw answer: the CLI's
 * promise is that `--json` and `--ndjson` show the API's own output, never a re-serialisation.
 */
export async function request<E extends Endpoint>(ctx: CliContext, endpoint: E, input?: ClientInput<E>): Promise<Answer<ResponseOf<E>>> {
  const path = buildPath(endpoint.path, input?.params as Record<string, unknown> | undefined);
  const init: RequestInit = { method: endpoint.method };
  if (input?.body !== undefined) {
    init.body = JSON.stringify(input.body);
    init.headers = { 'content-type': 'application/json' };
  }
  // Ctrl-C aborts the Io's signal; main.ts keeps the process alive for that, so requests must stop.
  init.signal = AbortSignal.any([ctx.io.signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]);
  let response: Response;
  let text: string;
  try {
    response = await ctx.client.raw(path + queryString(input?.query as Record<string, unknown> | undefined), init);
    text = await response.text();
  } catch (error) {
    if (ctx.io.signal.aborted) throw new CliError(EXIT.OK, 'interrupted');
    if (init.signal.aborted) throw new UnreachableError(ctx.url, 'timed out');
    throw error;
  }
  if (!response.ok) throw new ApiError(response.status, errorBody(response.status, text));
  if (!endpoint.response) return { data: undefined as ResponseOf<E>, text, json: undefined };
  const json: unknown = JSON.parse(text);
  return { data: endpoint.response.parse(json) as ResponseOf<E>, text, json };
}

function errorBody(status: number, text: string): ErrorBody {
  try {
    const parsed = ErrorBody.safeParse(JSON.parse(text));
    if (parsed.success) return parsed.data;
  } catch {
    // Not JSON: something other than taplined answered.
  }
  return { statusCode: status, error: text.trim().slice(0, 200) || `HTTP ${status}` };
}

/** The raw `data` members of a list answer, for `--ndjson`. */
export const rawItems = (answer: Answer<unknown>): unknown[] => {
  const data = (answer.json as { data?: unknown } | undefined)?.data;
  return Array.isArray(data) ? data : [];
};

export interface Page<T> {
  readonly data: readonly T[];
  readonly meta: { readonly total: number; readonly page: number; readonly limit: number };
}

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
