import { drained } from '../http/drained.js';
import type { Contract, TrafficStreamQuery } from '@tapline/shared';
import type { Request, Response } from 'express';
import type { Limits } from '../config.js';
import type { Deps } from '../deps.js';
import { HttpError, invalidField } from '../http/errors.js';
import { createReclaimer, type Reclaimer } from '../http/reclaim.js';
import type { RawRoute } from '../http/table.js';
import { createStreamHub } from './stream-hub.js';
import { DEFAULT_STREAM_OPTIONS, type StreamOptions, StreamSession, type StreamSink } from './stream-session.js';
import { schemaOnFirstUse } from '../zod-on-first-use.js';

const uuid = schemaOnFirstUse((z) => z.uuid());

/** `Last-Event-ID` (what a reconnecting EventSource sends) wins over `?after=` (its first URL). */
async function cursorOf(req: Request, query: TrafficStreamQuery): Promise<string | undefined> {
  const header = req.headers['last-event-id'];
  const text = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!text) return query.after?.toLowerCase();
  if (!(await uuid()).safeParse(text).success)
    throw invalidField('Last-Event-ID', 'Last-Event-ID must be a valid UUID', 'must be a valid UUID');
  return text.toLowerCase();
}

/** After its last event, a client gets this long to take what is left before its socket is destroyed. */
const END_GRACE_MS = 1_000;

function responseSink(res: Response, maxBytes: number, reclaim: Reclaimer): StreamSink {
  let fellBehind = false;
  // However a stream that fell behind ends (its overflow, the budget below, its client going away),
  // what was made for it (the text written for it, its queue, its socket's buffers) is garbage
  // then, and an idle daemon would keep it in V8's heap until the next burst of work (issue 24).
  res.once('close', () => fellBehind && reclaim.soon());
  return {
    write: (text) =>
      new Promise<void>((resolve) => {
        if (res.writableEnded || res.destroyed) return resolve();
        // Bytes the client has not taken past the budget: it is not reading; hold nothing for it.
        if (res.writableLength + text.length > maxBytes) {
          fellBehind = true;
          res.destroy();
          return resolve();
        }
        if (res.write(text)) return resolve();
        fellBehind = true;
        void drained(res).then(resolve);
      }),
    end: () => {
      if (res.writableEnded) return;
      res.end();
      // A client that stopped reading never takes the rest: its socket goes promptly, and with it
      // the bytes buffered for it. One that reads gets its last events (the overflow) first.
      const timer = setTimeout(() => res.destroy(), END_GRACE_MS).unref();
      res.once('close', () => clearTimeout(timer));
    },
  };
}

/** Retry-After of a 429 `too_many_streams`: streams end when their clients go, which takes a moment. */
const STREAMS_RETRY_AFTER_S = 5;

/**
 * Counts open streams per token and in all; `admit` returns the function that gives the place
 * back, or the reason for a 429. The counts live with the route, so each app has its own.
 */
function streamAdmission(limits: Limits): (tokenId: string) => (() => void) | string {
  const byToken = new Map<string, number>();
  let total = 0;
  return (tokenId) => {
    const mine = byToken.get(tokenId) ?? 0;
    if (mine >= limits.streamsPerToken || total >= limits.streams) {
      const which =
        mine >= limits.streamsPerToken
          ? `${limits.streamsPerToken} open streams per token`
          : `${limits.streams} open streams`;
      return `Too many open streams: the daemon allows ${which}; close one or retry later`;
    }
    byToken.set(tokenId, mine + 1);
    total++;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      total--;
      const now = (byToken.get(tokenId) ?? 1) - 1;
      if (now === 0) byToken.delete(tokenId);
      else byToken.set(tokenId, now);
    };
  };
}

/**
 * GET /http-traffic/:trafficSourceId/stream: the list's authentication, ownership and filters,
 * answered as Server-Sent Events (stream-session.ts). Every open stream ends when the daemon
 * stops, so SIGTERM is not held up by clients that never hang up.
 */
export function streamTrafficRoute(
  deps: Deps,
  given?: StreamOptions,
): { readonly route: RawRoute<Contract['streamTraffic']>; readonly open: () => number } {
  const options = given ?? { ...DEFAULT_STREAM_OPTIONS, maxBytes: deps.config.limits.streamBuffer };
  const hub = createStreamHub(deps);
  const sessions = new Set<StreamSession>();
  const admit = streamAdmission(deps.config.limits);
  // Streams that stop reading are closed in bursts: one collection a second after the first.
  const reclaim = createReclaimer(1_000);
  deps.shutdown.addEventListener('abort', () => sessions.forEach((s) => s.close()), { once: true });

  const handler: RawRoute<Contract['streamTraffic']>['handler'] = async ({ query }, ctx, req, res) => {
    const source = ctx.loaded;
    const after = await cursorOf(req, query);
    const { after: _after, ...filters } = query;
    if (deps.shutdown.aborted) throw new HttpError(503, 'stopping', 'The daemon is stopping');
    // A client that hung up while it was authenticated has had its 'close': it takes no place,
    // which nothing would give back.
    if (res.closed) return;
    const leave = admit(ctx.principal.tokenId);
    if (typeof leave === 'string') {
      res.set('retry-after', String(STREAMS_RETRY_AFTER_S));
      throw new HttpError(429, 'too_many_streams', leave);
    }
    res.once('close', leave);

    res.status(200).set({
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
    });
    res.flushHeaders();
    res.socket?.setNoDelay(true);
    const session = new StreamSession(
      deps,
      hub,
      source.id,
      filters,
      responseSink(res, options.maxBytes, reclaim),
      options,
      after,
    );
    sessions.add(session);
    res.on('close', () => session.close());
    try {
      await session.run();
    } finally {
      sessions.delete(session);
    }
  };
  return { route: { kind: 'raw', handler }, open: () => sessions.size };
}
