import { parentPort, workerData } from 'node:worker_threads';
import { createClient, postJson, UnreachableError } from '@tapline/shared';

/** What the thread is started with: the daemon to send to. */
export interface SenderData {
  readonly baseUrl: string;
  readonly token: string | null;
}

/** One POST for the thread to make. */
export interface SendRequest {
  readonly id: number;
  readonly path: string;
  readonly body: string;
  readonly timeoutMs: number;
}

/** Why a POST got no answer, as plain data: an UnreachableError keeps its parts. */
export interface SendFailure {
  readonly name: string;
  readonly message: string;
  readonly unreachable?: { readonly url: string; readonly reason: string };
}

/** The answer to a SendRequest of the same id: the daemon's answer, or why there was none. */
export type SendResult =
  | { readonly id: number; readonly answer: { status: number; text: string; retryAfter: string | null } }
  | { readonly id: number; readonly failure: SendFailure };

/**
 * The proxy's sending thread (bundled to dist/proxy-sender.js beside tapline.js): it makes the
 * recorder's POSTs to the daemon with the same client and answer reading as the recorder's own
 * thread would, so that fetch's work on each batch is not done between two forwarded requests
 * (proxy/sender.ts, docs/decisions.md §20.36).
 */
// eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- node types workerData as `any`; sender.ts passes a SenderData (checked there with `satisfies`)
const { baseUrl, token } = workerData as SenderData;
const client = createClient({ baseUrl, token: token ?? undefined });

const failureOf = (error: unknown): SendFailure =>
  error instanceof UnreachableError
    ? { name: error.name, message: error.message, unreachable: { url: error.url, reason: error.reason } }
    : error instanceof Error
      ? { name: error.name, message: error.message }
      : { name: 'Error', message: String(error) };

parentPort?.on('message', ({ id, path, body, timeoutMs }: SendRequest) => {
  postJson(client, path, body, timeoutMs).then(
    (answer) => parentPort?.postMessage({ id, answer } satisfies SendResult),
    (error: unknown) => parentPort?.postMessage({ id, failure: failureOf(error) } satisfies SendResult),
  );
});
