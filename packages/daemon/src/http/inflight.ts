import './locals.js';
import type { ServerResponse } from 'node:http';
import type { RequestHandler, Response } from 'express';
import { HttpError } from './errors.js';

/**
 * Requests still running. Stopping waits for them before the database closes: a client that
 * gives up mid-request closes its socket (so the server no longer waits for it) while its handler
 * may still be waiting on a worker thread, and would otherwise write to a closed database.
 */
export interface Inflight {
  track<T>(work: Promise<T>): Promise<T>;
  /**
   * Resolves once nothing tracked is running, including work tracked while waiting, or after
   * `timeoutMs` at most (false then), so that no handler can hold up a stop for ever.
   */
  drain(timeoutMs: number): Promise<boolean>;
}

const ignore = () => undefined;

export function createInflight(): Inflight {
  const running = new Set<Promise<unknown>>();
  return {
    track(work) {
      const settled = work.then(ignore, ignore);
      running.add(settled);
      void settled.then(() => running.delete(settled));
      return work;
    },
    async drain(timeoutMs) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
      const idle = (async () => {
        while (running.size > 0) await Promise.all(running);
        return true as const;
      })();
      try {
        return await Promise.race([idle, late]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** Called by the route with its handler's promise, so that the request counts until it settles. */
export function recordWork(res: Response, work: Promise<unknown>): Promise<unknown> {
  res.locals.work = work;
  return work;
}

/**
 * The first middleware: a request counts as running from its arrival until its response is
 * over and its handler (if it started) has settled; a client that hangs up ends the first but
 * not the second. Once the daemon is stopping, new requests (a keep-alive client may still send
 * some) get a 503 and `Connection: close` instead of reaching a database about to close.
 */
export function trackRequests(inflight: Inflight, stopping: AbortSignal): RequestHandler {
  return (_req, res, next) => {
    if (stopping.aborted) {
      res.set('connection', 'close');
      return next(new HttpError(503, 'stopping', 'The daemon is stopping'));
    }
    trackAnswer(inflight, res, () => res.locals.work);
    next();
  };
}

/**
 * Counts a request from its arrival until its answer is over and `work()` (its handler's promise,
 * if it started) has settled; Express's requests (trackRequests) and the lean path's alike.
 */
export function trackAnswer(inflight: Inflight, res: ServerResponse, work: () => unknown): void {
  const over = new Promise<void>((resolve) => res.once('close', resolve));
  void inflight.track(over.then(work));
}
