import type { ClientInput, Endpoint, ResponseOf } from './contract.js';
import { answerError, NotTaplineError, UnreachableError } from './errors.js';
import { isRecord } from './json.js';
import { buildPath, scalarText } from './paths.js';

export { ApiError, answerError, apiErrorOf, NotTaplineError, UnreachableError } from './errors.js';

export interface ClientOptions {
  /** `http://127.0.0.1:7468`; a trailing slash is ignored. */
  readonly baseUrl: string;
  readonly token?: string | undefined;
  readonly fetch?: typeof fetch;
  readonly timeoutMs?: number;
}

export type QueryValue = string | number | boolean | undefined | null;

export function queryString(query: unknown): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(isRecord(query) ? query : {})) {
    if (value === undefined || value === null || value === '') continue;
    // A repeatable parameter (`route` of api infer) is sent once per value.
    for (const one of Array.isArray(value) ? value : [value]) search.append(key, scalarText(one));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** A parsed answer, with the daemon's own text kept for callers that must print it unchanged. */
export interface Answer<T> {
  readonly data: T;
  /** The response body exactly as the daemon sent it. */
  readonly text: string;
  /** `text` parsed, not passed through the contract's schema (which drops unknown members). */
  readonly json: unknown;
}

export interface TaplineClient {
  readonly baseUrl: string;
  call<E extends Endpoint>(endpoint: E, input?: ClientInput<E>): Promise<ResponseOf<E>>;
  /** Like `call`, keeping the raw answer too; `signal` replaces the client's time-out. */
  request<E extends Endpoint>(
    endpoint: E,
    input?: ClientInput<E>,
    signal?: AbortSignal,
  ): Promise<Answer<ResponseOf<E>>>;
  /** A raw request with the client's base URL and token, for streams and other non-JSON answers. */
  raw(path: string, init?: RequestInit): Promise<Response>;
}

export function createClient(options: ClientOptions): TaplineClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;

  async function raw(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (options.token) headers.set('authorization', `Bearer ${options.token}`);
    const signal = init.signal ?? (options.timeoutMs ? AbortSignal.timeout(options.timeoutMs) : undefined);
    try {
      return await doFetch(`${baseUrl}${path}`, { ...init, headers, signal: signal ?? null });
    } catch (error) {
      if (init.signal?.aborted) throw error;
      throw new UnreachableError(baseUrl, describeFetchError(error));
    }
  }

  async function request<E extends Endpoint>(
    endpoint: E,
    input?: ClientInput<E>,
    signal?: AbortSignal,
  ): Promise<Answer<ResponseOf<E>>> {
    const path = buildPath(endpoint.path, input?.params);
    const init: RequestInit = { method: endpoint.method, ...(signal ? { signal } : {}) };
    if (input?.body !== undefined) {
      init.body = JSON.stringify(input.body);
      init.headers = { 'content-type': 'application/json' };
    }
    const response = await raw(path + queryString(input?.query), init);
    const text = await response.text();
    if (!response.ok) throw answerError(baseUrl, response.status, text);
    const json = endpoint.response ? parseJson(text) : undefined;
    const parsed = endpoint.response?.safeParse(json);
    // A daemon answers every endpoint in the contract's shape: anything else at this URL is
    // another server (or a page in front of one), and a dump of schema issues helps nobody.
    if (parsed && !parsed.success) {
      const seen =
        json === NOT_JSON
          ? `a body that is not JSON (${response.headers.get('content-type') ?? 'no content-type'})`
          : `JSON the contract does not describe (${parsed.error.issues[0]?.message ?? 'invalid'})`;
      throw new NotTaplineError(baseUrl, `${endpoint.method} ${path} answered ${response.status} with ${seen}`);
    }
    // ResponseOf<E> is a conditional type on E's response schema, which the compiler cannot
    // resolve for a generic E; the branch taken here is the one it names.
    // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- see above
    const data = parsed?.data as ResponseOf<E>;
    return { data, text, json };
  }

  const call = async <E extends Endpoint>(endpoint: E, input?: ClientInput<E>) => (await request(endpoint, input)).data;

  return { baseUrl, call, request, raw };
}

const NOT_JSON = Symbol('not JSON');

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return NOT_JSON;
  }
}

function describeFetchError(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  if (cause && typeof cause === 'object' && 'code' in cause && typeof cause.code === 'string') return cause.code;
  if (cause instanceof Error) return cause.name === 'TimeoutError' ? 'timed out' : cause.message;
  return String(cause);
}
