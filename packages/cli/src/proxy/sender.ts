import { Worker } from 'node:worker_threads';
import { postJson, type PostJson, type TaplineClient, UnreachableError } from '@tapline/shared';
import type { SendFailure, SenderData, SendRequest, SendResult } from './send-thread.js';

export interface ThreadSender {
  /** The recorder's POST, made by the thread (or by this one once the thread is gone). */
  readonly post: PostJson;
  /** Ends the thread, after the recorder's close: a POST still out is never settled, left to the exit. */
  close(): Promise<void>;
}

interface Waiting {
  resolve: (answer: Awaited<ReturnType<PostJson>>) => void;
  reject: (error: Error) => void;
}

/**
 * The recorder's POSTs made from a worker thread (`worker`, the bundle proxy-sender.js built from
 * send-thread.ts). On the proxy's event loop each batch cost fetch's request, its streams and the
 * answer's reading, between two forwarded requests; now the loop only hands the batch's text
 * over and gets the answer back. A thread that fails is not restarted: what it had out fails as
 * an unreachable daemon does (the recorder keeps those records and retries them), and later POSTs
 * go through `client` on this thread, as before (docs/decisions.md §20.36).
 */
export function createThreadSender(worker: URL, client: TaplineClient, token: string | null): ThreadSender {
  const waiting = new Map<number, Waiting>();
  let next = 0;
  let thread: Worker | undefined = new Worker(worker, {
    workerData: { baseUrl: client.baseUrl, token } satisfies SenderData,
  });
  // Recording never keeps the proxy alive by itself: a flush waits with a timer of its own.
  thread.unref();
  thread.on('message', (result: SendResult) => {
    const one = waiting.get(result.id);
    if (!one) return;
    waiting.delete(result.id);
    if ('answer' in result) one.resolve(result.answer);
    else one.reject(errorOf(result.failure));
  });
  let closed = false;
  const gone = (error: Error) => {
    // Ended by `close`, after the recorder's own close: a POST still out is left to the exit.
    if (closed) return;
    thread = undefined;
    for (const one of waiting.values()) one.reject(new UnreachableError(client.baseUrl, error.message));
    waiting.clear();
  };
  thread.on('error', gone);
  thread.on('exit', (code) => gone(new Error(`the sending thread ended (exit code ${code})`)));

  return {
    post: (path, body, timeoutMs) => {
      if (!thread) return postJson(client, path, body, timeoutMs);
      const id = next++;
      const sent = new Promise<Awaited<ReturnType<PostJson>>>((resolve, reject) =>
        waiting.set(id, { resolve, reject }),
      );
      thread.postMessage({ id, path, body, timeoutMs } satisfies SendRequest);
      return sent;
    },
    close: async () => {
      closed = true;
      const ending = thread;
      thread = undefined;
      if (ending) await ending.terminate();
    },
  };
}

/** The error the thread's POST failed with, as this thread's client would have thrown it. */
function errorOf(failure: SendFailure): Error {
  if (failure.unreachable) return new UnreachableError(failure.unreachable.url, failure.unreachable.reason);
  const error = new Error(failure.message);
  error.name = failure.name;
  return error;
}
