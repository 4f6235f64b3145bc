import type { IncomingMessage } from 'node:http';
import { createTapline, stateOf, type ErrorHandler, type TaplineOptions } from './middleware.js';

export type {
  ErrorHandler,
  Next,
  QueueOptions,
  Tapline,
  TaplineLogger,
  TaplineOptions,
  TaplineStats,
} from './middleware.js';

/**
 * `app.use(tapline({ url, token, source }))`: records every request and response of an Express
 * (or Connect, or plain node:http) app to a Tapline daemon, in batches, without ever making the
 * application wait or fail.
 */
export function tapline(options: TaplineOptions) {
  return createTapline(options);
}

/**
 * Posts a core log for `error`, linked to the traffic entry of `req`, through the middleware
 * that saw `req`. Returns `false` when no tapline middleware saw it (nowhere to send the log to).
 */
tapline.captureError = (
  error: unknown,
  req: IncomingMessage,
  options?: { layer?: string; title?: string },
): boolean => {
  const state = stateOf(req);
  state?.instance.captureError(error, req, options);
  return state !== undefined;
};

/** Express error middleware for any number of tapline instances: captures, then passes the error on. */
tapline.errorHandler = (): ErrorHandler => (error, req, _res, next) => {
  tapline.captureError(error, req);
  next(error);
};

export default tapline;
