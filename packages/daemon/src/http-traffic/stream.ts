import { contract, type TrafficStreamQuery } from '@tapline/shared';
import type { Request, Response, Router } from 'express';
import { z } from 'zod';
import type { Deps } from '../deps.js';
import { HttpError, invalidField } from '../http/errors.js';
import { mountRaw } from '../http/mount.js';
import { loadAuthorizedSource } from '../traffic-sources/load.js';
import { createStreamHub } from './stream-hub.js';
import { DEFAULT_STREAM_OPTIONS, type StreamOptions, StreamSession, type StreamSink } from './stream-session.js';

/** `Last-Event-ID` (what a reconnecting EventSource sends) wins over `?after=` (its first URL). */
function cursorOf(req: Request, query: TrafficStreamQuery): string | undefined {
  const header = req.headers['last-event-id'];
  const text = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!text) return query.after?.toLowerCase();
  if (!z.uuid().safeParse(text).success) throw invalidField('Last-Event-ID', 'Last-Event-ID must be a valid UUID', 'must be a valid UUID');
  return text.toLowerCase();
}

function responseSink(res: Response): StreamSink {
  return {
    write: (text) =>
      new Promise<void>((resolve) => {
        if (res.writableEnded || res.destroyed) return resolve();
        if (res.write(text)) return resolve();
        const done = () => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      }),
    end: () => {
      if (res.writableEnded) return;
      res.end();
      // A client that stopped reading never takes the rest: do not keep its socket for ever.
      const timer = setTimeout(() => res.destroy(), 30_000).unref();
      res.once('close', () => clearTimeout(timer));
    },
  };
}

/**
 * GET /http-traffic/:trafficSourceId/stream: the list's authentication, ownership and filters,
 * answered as Server-Sent Events (stream-session.ts). Every open stream ends when the daemon
 * stops, so SIGTERM is not held up by clients that never hang up.
 */
export function streamTrafficRoute(router: Router, deps: Deps, options: StreamOptions = DEFAULT_STREAM_OPTIONS): { readonly open: () => number } {
  const hub = createStreamHub(deps.bus);
  const sessions = new Set<StreamSession>();
  deps.shutdown.addEventListener('abort', () => sessions.forEach((s) => s.close()), { once: true });

  mountRaw(router, deps, contract.streamTraffic, async ({ params, query }, ctx, req, res) => {
    const source = await loadAuthorizedSource(deps, ctx, params.trafficSourceId);
    const after = cursorOf(req, query);
    const { after: _after, ...filters } = query;
    if (deps.shutdown.aborted) throw new HttpError(503, 'stopping', 'The daemon is stopping');

    res.status(200).set({
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
    });
    res.flushHeaders();
    res.socket?.setNoDelay(true);
    const session = new StreamSession(deps.db, hub, source.id, filters, responseSink(res), options, after);
    sessions.add(session);
    res.on('close', () => session.close());
    try {
      await session.run();
    } finally {
      sessions.delete(session);
    }
  });
  return { open: () => sessions.size };
}
