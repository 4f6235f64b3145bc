import type { Express, NextFunction, Request, Response } from 'express';
import { HttpError } from '../http/errors.js';
import type { WebUiSource } from './assets.js';
import { hostNamesDaemon, hostName } from './host.js';

/**
 * Origins the page's replay panel may send to without a flag: an app on the user's own machine.
 * No `http://[::1]:*`: CSP's host grammar has no IPv6 literal, and Chromium drops it with a console
 * error on every load; `localhost` reaches `::1` anyway. An `http:` source also allows `https:`.
 */
export const LOOPBACK_REPLAY_ORIGINS: readonly string[] = ['http://localhost:*', 'http://127.0.0.1:*'];

/**
 * The page may load only its own script, style and data: no inline script (React renders
 * everything recorded as text, and this makes a slip inert too), no frames of it anywhere, no
 * form posting elsewhere. `data:` images are uPlot's. `connect-src` is the API, and the origins a
 * replay may go to (loopback, and `--ui-replay-origin`; docs/decisions.md §24.7).
 */
export function contentSecurityPolicy(replayOrigins: readonly string[]): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    ["connect-src 'self'", ...LOOPBACK_REPLAY_ORIGINS, ...replayOrigins].join(' '),
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
};

export interface WebUiOptions {
  /** `--host` and `--ui-host`: names besides IP literals and localhost that the page answers to. */
  readonly hosts: readonly string[];
  /** `--ui-replay-origin`: origins besides loopback the replay panel may send to, already checked. */
  readonly replayOrigins: readonly string[];
}

/**
 * `GET /` (the page) and `GET /assets/*` (hashed, immutable). Mounted before the API's router:
 * no API path is `/` or under `/assets/`.
 */
export function webUiRoutes(app: Express, ui: WebUiSource, options: WebUiOptions): void {
  const headers = { ...SECURITY_HEADERS, 'content-security-policy': contentSecurityPolicy(options.replayOrigins) };
  const allowed = new Set(options.hosts.map((h) => hostName(h)).filter((h): h is string => h !== undefined));
  const serve = (req: Request, res: Response, next: NextFunction) => {
    // Read here on the first request (synchronously: no request can find it half read). A pack
    // that cannot be read leaves these paths to the API's router, as a daemon without one does.
    const pack = ui();
    if (!pack) {
      next();
      return;
    }
    if (!hostNamesDaemon(req.headers.host, allowed)) {
      throw new HttpError(
        421,
        'unknown_host',
        'This daemon does not answer to that host name; start it with --ui-host NAME to allow it',
      );
    }
    const asset = pack.files.get(req.path);
    if (!asset) throw new HttpError(404, 'route_not_found', 'Not Found');
    res.set(headers);
    res.set('content-type', asset.type);
    res.set('cache-control', asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
    res.set('vary', 'Accept-Encoding');
    const gzip = /\bgzip\b/.test(req.headers['accept-encoding'] ?? '');
    if (gzip) res.set('content-encoding', 'gzip');
    res.status(200).end(gzip ? asset.gzip : asset.body);
  };
  app.get('/', serve);
  app.get('/assets/:name', serve);
}
