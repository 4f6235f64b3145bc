import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Principal } from '../auth/tokens.js';
import type { ServerDeps } from './server-deps.js';
import { failureAnswer, sendJson, writeFailure } from './errors.js';
import { trackAnswer } from './inflight.js';
import { bearerToken, type MountedRoute } from './mount.js';
import { type BodyReader, createBodyReader } from './read-body.js';

/** Serves a request itself, or hands it to `fallback` (the Express app) before reading any of it. */
export type LeanDispatcher = (req: IncomingMessage, res: ServerResponse, fallback: () => void) => void;

type LeanDeps = Pick<
  ServerDeps,
  | 'config'
  | 'tokens'
  | 'inflight'
  | 'shutdown'
  | 'largeBodies'
  | 'storedBatches'
  | 'logger'
  | 'outages'
  | 'clientAddress'
>;

interface Matched {
  readonly route: MountedRoute;
  readonly params: Record<string, string>;
  readonly reader: BodyReader;
}

/**
 * `/http-traffic-record/:trafficSourceId/batch` as a pattern that takes only the plain form:
 * parameters of characters that percent-decoding leaves alone, an optional trailing slash, no
 * other case. Whatever else Express would also route there (`%41`, upper case) goes to Express.
 */
function pathMatcher(route: MountedRoute, reader: BodyReader): (path: string) => Matched | undefined {
  const names: string[] = [];
  const source = route.endpoint.path.replace(
    /:([A-Za-z]+)/g,
    (_, name: string) => (names.push(name), '([A-Za-z0-9_-]{1,128})'),
  );
  const pattern = new RegExp(`^${source}/?$`);
  return (path) => {
    const found = pattern.exec(path);
    if (!found) return undefined;
    const params: Record<string, string> = {};
    names.forEach((name, i) => (params[name] = found[i + 1] ?? ''));
    return { route, params, reader };
  };
}

/**
 * The ingest endpoints (single compose, batches, `/ingest-log`) without Express: the same route
 * work (mount.ts), authentication, body rules and error bodies, read and answered on node:http.
 * Express's router, body-parser and `res.json` were a large share of a compose's CPU time
 * (docs/performance.md#ingest-and-the-http-path). Anything out of the ordinary (no or a bad token,
 * a body it does not read, a stopping daemon) goes to Express untouched, as it always did.
 */
export function createLeanDispatcher(deps: LeanDeps, routes: readonly MountedRoute[]): LeanDispatcher {
  const matchers = routes
    .filter((r) => r.endpoint.method === 'POST')
    .map((r) => pathMatcher(r, createBodyReader(r.endpoint.maxBody ?? deps.config.maxBody, r.mode, deps)));

  function match(req: IncomingMessage): Matched | undefined {
    if (req.method !== 'POST' || deps.shutdown.aborted || req.url === undefined) return undefined;
    const end = req.url.indexOf('?');
    const path = end === -1 ? req.url : req.url.slice(0, end);
    for (const m of matchers) {
      const found = m(path);
      if (found) return found;
    }
    return undefined;
  }

  function fail(req: IncomingMessage, res: ServerResponse, path: string, error: unknown): void {
    const answer = failureAnswer(
      error,
      { ip: deps.clientAddress(req), socket: req.socket, method: 'POST', path },
      deps,
    );
    writeFailure(req, res, answer);
  }

  async function serve(
    req: IncomingMessage,
    res: ServerResponse,
    { route, params, reader }: Matched,
    principal: Principal,
  ): Promise<void> {
    const body = await reader.read(req, res);
    const result = await route.work({ params, query: {}, body }, principal);
    sendJson(res, route.endpoint.status, result);
  }

  return (req, res, fallback) => {
    const matched = match(req);
    const token = matched && bearerToken(req.headers.authorization ?? '');
    // Only a plain body (read-body.ts): Express answers the rest (415, 413, gzip, UTF-16, chunked) as before.
    if (!matched || !token || !matched.reader.plain(req)) return fallback();
    let work: Promise<unknown> = Promise.resolve();
    trackAnswer(deps.inflight, res, () => work);
    work = deps.tokens
      .verify(token)
      // A refused token is Express's to answer (and audit): nothing of the request was read yet.
      .then((verified) => ('failure' in verified ? fallback() : serve(req, res, matched, verified.principal)))
      .catch((error: unknown) => fail(req, res, req.url?.split('?')[0] ?? '', error));
  };
}
