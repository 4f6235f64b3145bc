import {
  ApiError,
  type ClientInput,
  type Endpoint,
  type ResponseOf,
  type TaplineClient,
} from '@tapline/shared/browser';

/** What one endpoint of the fake answers: the parsed answer, or an error thrown as the client would. */
export type Handler = (input: { params?: unknown; query?: unknown; body?: unknown }) => unknown;

export interface FakeClient extends TaplineClient {
  /** Every call made, as `METHOD path` with its input, in order. */
  readonly calls: {
    readonly endpoint: Endpoint;
    readonly input: { params?: unknown; query?: unknown; body?: unknown };
  }[];
}

/**
 * A client for component tests: each endpoint of the contract answers through its handler, and
 * an endpoint without one fails the test loudly (a view calling what it should not).
 */
export function fakeClient(handlers: ReadonlyMap<Endpoint, Handler>): FakeClient {
  const calls: FakeClient['calls'] = [];
  const call = async <E extends Endpoint>(endpoint: E, input?: ClientInput<E>): Promise<ResponseOf<E>> => {
    const given = { params: input?.params, query: input?.query, body: input?.body };
    calls.push({ endpoint, input: given });
    const handler = handlers.get(endpoint);
    if (!handler) throw new Error(`unexpected call: ${endpoint.method} ${endpoint.path}`);
    await Promise.resolve();
    // The handler answers in the endpoint's shape; the tests type their handlers' answers by hand.
    // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- see above
    return handler(given) as ResponseOf<E>;
  };
  return {
    baseUrl: 'http://tapline.test',
    calls,
    call,
    request: () => Promise.reject(new Error('not faked')),
    raw: () => Promise.reject(new Error('not faked')),
  };
}

/** A 400 as the daemon sends it, with its issues by field. */
export const invalid = (issues: readonly { readonly path: string; readonly message: string }[]) =>
  new ApiError(400, {
    statusCode: 400,
    error: issues[0]?.message ?? 'invalid',
    code: 'validation_failed',
    issues: [...issues],
  });

export const page = <T>(data: readonly T[], total = data.length, p = 1, limit = 100) => ({
  data,
  meta: { total, page: p, limit },
});

export const uuid = (i: number) => `01a1fc99-9069-75ce-b9c9-${String(i).padStart(12, '0')}`;
