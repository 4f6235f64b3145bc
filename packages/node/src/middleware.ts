import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  createClient,
  createRecorder,
  DEFAULT_MAX_BODY,
  isRecordedMethod,
  resolveSourceId,
  toRecordBody,
  type CreateCoreLog,
  type Refusal,
} from '@tapline/shared';
import { coreLogOf } from './core-log.js';
import { tap } from './tap.js';

/**
 * The published types of this package stand alone (the workspace's shared package is bundled,
 * not published), so the recorder's option and stats shapes are spelled out here; passing them
 * to the shared recorder keeps them in step at compile time.
 */
export interface QueueOptions {
  /** Records held while the daemon is slow or down; past it new records are dropped. Default 10,000. */
  readonly maxQueue?: number;
  /** The same bound in bytes of JSON. Default 64 MiB. */
  readonly maxQueueBytes?: number;
  /** Records per request, at most 1,000. Default 500. */
  readonly batchSize?: number;
  /** How long a record may wait for others to share its request. Default 200 ms. */
  readonly flushIntervalMs?: number;
  /** Backoff between failed attempts, doubling from `initialMs` (250) to `maxMs` (5,000). */
  readonly retry?: { readonly initialMs?: number; readonly maxMs?: number };
  readonly onDrop?: (event: {
    readonly reason: 'queue-full' | 'rejected' | 'closed';
    readonly count: number;
    readonly total: number;
    readonly error?: Error;
  }) => void;
  /** Each failed attempt that is retried: the daemon down, unavailable (503) or failing (5xx). */
  readonly onError?: (error: Error) => void;
}

/** Where the middleware's warnings go; `console` and most loggers (pino, winston) fit. */
export interface TaplineLogger {
  warn(message: string): void;
}

export interface TaplineStats {
  readonly queued: number;
  readonly queuedBytes: number;
  readonly sent: number;
  /** Records dropped here: the queue was full while the daemon was slow or down, or after `close()`. */
  readonly dropped: number;
  readonly droppedBy: { readonly queueFull: number; readonly closed: number };
  /** Records given up because of the daemon's answer; never retried. */
  readonly rejected: number;
  /** `rejected` by answer: `unauthorized` 401, `forbidden` 403, `notFound` 404 or no such source, `invalid` other 4xx, `serverError` a record that kept failing with a 500. */
  readonly rejectedBy: {
    readonly invalid: number;
    readonly unauthorized: number;
    readonly forbidden: number;
    readonly notFound: number;
    readonly serverError: number;
  };
  /** The daemon's latest refusal of the token or source, until it stores records again. */
  readonly refusal: { readonly status: number; readonly message: string } | null;
  /** Requests not recorded: methods outside GET POST PUT DELETE PATCH. */
  readonly skipped: number;
  readonly failures: number;
  readonly coreLogsSent: number;
  readonly coreLogsDropped: number;
}

export interface TaplineOptions {
  /** The daemon's base URL. Default `http://127.0.0.1:7468`. */
  readonly url?: string;
  /** A token with the `ingest` scope is enough. */
  readonly token: string;
  /** The traffic source's name or id. */
  readonly source: string;
  /** `source` of core logs: the name of this service. Default: the traffic source's name. */
  readonly service?: string;
  /** `layer` of core logs. Default `Application`. */
  readonly layer?: string;
  /** Text bodies are kept up to this many bytes, then truncated with a marker. Default 64 KiB. */
  readonly maxBody?: number;
  /** Requests to leave unrecorded: health checks, static assets. */
  readonly ignore?: (req: IncomingMessage) => boolean;
  /** The `trafficUserId` (a UUID) of a request, such as the signed-in user's id. */
  readonly trafficUserId?: (req: IncomingMessage) => string | null | undefined;
  /** Queue and batching of the recorder; `onDrop`/`onError` to hear about trouble. */
  readonly queue?: QueueOptions;
  /**
   * Gets one line when the daemon refuses the token or the source (401, 403, 404): once, and
   * again only after records were stored in between. Default: the line on stderr. `false`: none.
   */
  readonly logger?: TaplineLogger | false;
  /** For tests. */
  readonly fetch?: typeof fetch;
}

export type Next = (error?: unknown) => void;
export type ErrorHandler = (error: unknown, req: IncomingMessage, res: ServerResponse, next: Next) => void;

export interface Tapline {
  /** Connect/Express middleware; also callable from a plain node:http handler. */
  (req: IncomingMessage, res: ServerResponse, next: Next): void;
  /**
   * Posts a core log for `error`. With the `req` it happened in, the log is linked to that
   * request's traffic entry once the entry is stored. Never throws, never waits.
   */
  captureError(error: unknown, req?: IncomingMessage, options?: { layer?: string; title?: string }): void;
  /** Express error middleware: captures the error, then passes it on to the next error handler. */
  errorHandler(): ErrorHandler;
  /** A node:http request listener that records, and turns a throw or rejection into a captured error and a 500. */
  wrap(
    handler: (req: IncomingMessage, res: ServerResponse) => unknown,
  ): (req: IncomingMessage, res: ServerResponse) => void;
  stats(): TaplineStats;
  /** Waits until what was recorded so far is stored; `false` if `timeoutMs` (5 s) ran out first. */
  flush(timeoutMs?: number): Promise<boolean>;
  /** Flushes and stops; call it on shutdown. */
  close(timeoutMs?: number): Promise<boolean>;
}

/**
 * What a request carries for `captureError`: errors wait here until the request's entry id is
 * known, then go out linked to it. A symbol-keyed property, so that no module keeps state.
 */
const STATE = Symbol.for('tapline.request');
interface RequestState {
  readonly instance: Tapline;
  /** The stored entry's id; `null` once it is known that there will be none. */
  id: string | null | undefined;
  readonly pending: CreateCoreLog[];
}
type Tracked = IncomingMessage & { [STATE]?: RequestState };

export const stateOf = (req: Tracked | undefined): RequestState | undefined => req?.[STATE];

const stderrLogger: TaplineLogger = { warn: (message) => void process.stderr.write(`${message}\n`) };

const HINTS: Readonly<Record<number, string>> = {
  401: 'check the token',
  403: 'the token may not write to this source',
  404: "check the source's name or id",
};

/** The warning for a refusal: the status and the daemon's message, never the token. */
function refusalLine(
  refusal: Refusal,
  where: { readonly url: string; readonly source: string; readonly token: string },
): string {
  const hint = HINTS[refusal.status] ?? 'check the token and the source';
  const line = `@tapline/node: the daemon at ${where.url} refused the records for source "${where.source}" (${refusal.status} ${refusal.message}): ${hint}. Refused records are dropped, not retried; stats().rejected counts them.`;
  return where.token ? line.split(where.token).join('[token]') : line;
}

export function createTapline(options: TaplineOptions): Tapline {
  const client = createClient({
    baseUrl: options.url ?? 'http://127.0.0.1:7468',
    token: options.token,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const logger = options.logger === false ? undefined : (options.logger ?? stderrLogger);
  const recorder = createRecorder({
    ...options.queue,
    client,
    // The recorder's own POST, through `client`: `post` is the CLI proxy's (decisions §20.36), no
    // option of this package, so a `queue` from JavaScript cannot carry one in.
    post: undefined,
    sourceId: () => resolveSourceId(client, options.source),
    onRefused: (refusal) =>
      logger?.warn(refusalLine(refusal, { url: client.baseUrl, source: options.source, token: options.token })),
  });
  const maxBody = options.maxBody ?? DEFAULT_MAX_BODY;
  const context = { service: options.service ?? options.source, layer: options.layer ?? 'Application' };
  let skipped = 0;
  const capturing = new Set<Promise<void>>();

  const settle = (state: RequestState, id: string | null) => {
    state.id = id;
    for (const log of state.pending.splice(0)) recorder.coreLog({ ...log, httpTrafficId: id });
  };

  // A function that is also an object: its other members (captureError, errorHandler, wrap) are
  // attached right below, which the compiler cannot see at this point.
  // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- see above
  const middleware = ((req: IncomingMessage, res: ServerResponse, next: Next) => {
    try {
      const state: RequestState = { instance: middleware, id: undefined, pending: [] };
      const tracked: Tracked = req;
      tracked[STATE] = state;
      if (!isRecordedMethod(req.method) || options.ignore?.(req)) {
        if (!isRecordedMethod(req.method)) skipped++;
        state.id = null;
      } else {
        const recorded = tap(req, res, maxBody)
          .done.then((observed) => {
            const body = observed && toRecordBody({ ...observed, trafficUserId: options.trafficUserId?.(req) });
            if (!body || !recorder.record(body, (id) => settle(state, id))) settle(state, null);
          })
          .catch(() => settle(state, null))
          .finally(() => capturing.delete(recorded));
        // From the response's end until the record is queued, a flush waits for it.
        res.once('finish', () => capturing.add(recorded));
      }
    } catch {
      // Recording must never fail the application's request.
    }
    next();
  }) as Tapline;

  middleware.captureError = (error, req, overrides = {}) => {
    try {
      const log = coreLogOf(error, req, { ...context, ...overrides });
      const state = stateOf(req);
      if (state && state.instance === middleware && state.id === undefined) state.pending.push(log);
      else recorder.coreLog({ ...log, httpTrafficId: state?.instance === middleware ? state.id : null });
    } catch {
      // As above: never throw from error reporting.
    }
  };
  middleware.errorHandler = () => (error, req, _res, next) => {
    middleware.captureError(error, req);
    next(error);
  };
  middleware.wrap = (handler) => (req, res) => {
    const fail = (error: unknown) => {
      middleware.captureError(error, req);
      if (res.headersSent) res.destroy();
      else res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('Internal Server Error');
    };
    middleware(req, res, () => {
      try {
        const result = handler(req, res);
        if (result instanceof Promise) result.catch(fail);
      } catch (error) {
        fail(error);
      }
    });
  };
  middleware.stats = () => {
    const stats = recorder.stats();
    return { ...stats, skipped: stats.skipped + skipped };
  };
  /** Bodies of finished responses are still being read: wait for them, then for the queue. */
  const settleCaptures = async (timeoutMs: number) => {
    let timer: NodeJS.Timeout | undefined;
    const started = Date.now();
    await Promise.race([
      Promise.allSettled([...capturing]),
      new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs))),
    ]);
    clearTimeout(timer);
    return Math.max(0, timeoutMs - (Date.now() - started));
  };
  middleware.flush = async (timeoutMs = 5_000) => recorder.flush(await settleCaptures(timeoutMs));
  middleware.close = async (timeoutMs = 5_000) => recorder.close(await settleCaptures(timeoutMs));
  return middleware;
}
