import { isUtf8 } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Principal } from '../auth/tokens.js';
import type { ServerDeps } from './server-deps.js';
import { CHARSET, JSON_TYPE, NOT_UTF8, UTF8 } from './body.js';
import { failureAnswer, HttpError, MALFORMED_JSON, OVERLOADED, RetryLater } from './errors.js';
import { deeperThan, MAX_JSON_DEPTH, TOO_DEEP } from './json-depth.js';
import { answerBeforeBody } from './linger.js';
import { bearerToken, type MountedRoute } from './mount.js';

/** Serves a request itself, or hands it to `fallback` (the Express app) before reading any of it. */
export type LeanDispatcher = (req: IncomingMessage, res: ServerResponse, fallback: () => void) => void;

type LeanDeps = Pick<
  ServerDeps,
  'config' | 'tokens' | 'inflight' | 'shutdown' | 'largeBodies' | 'logger' | 'outages' | 'clientAddress'
>;

interface Matched {
  readonly route: MountedRoute;
  readonly params: Record<string, string>;
}

/**
 * `/http-traffic-record/:trafficSourceId/batch` as a pattern that takes only the plain form:
 * parameters of characters that percent-decoding leaves alone, an optional trailing slash, no
 * other case. Whatever else Express would also route there (`%41`, upper case) goes to Express.
 */
function pathMatcher(route: MountedRoute): (path: string) => Matched | undefined {
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
    return { route, params };
  };
}

/**
 * The headers of the one kind of request the lean path reads: a JSON body (UTF-8, the only
 * charset it decodes) of a declared length within the endpoint's limit, neither chunked nor
 * compressed. Express answers the rest (415, 413, gzip, UTF-16 and chunked bodies) as before.
 */
function plainJson(req: IncomingMessage, limit: number): number | undefined {
  const { headers } = req;
  const length = headers['content-length'];
  if (
    length === undefined ||
    headers['transfer-encoding'] !== undefined ||
    headers['content-encoding'] !== undefined ||
    !/^[0-9]{1,10}$/.test(length)
  )
    return undefined;
  const type = headers['content-type'] ?? '';
  if (!JSON_TYPE.test(type) || (CHARSET.test(type) && !UTF8.test(type))) return undefined;
  const bytes = Number(length);
  return bytes > 0 && bytes <= limit ? bytes : undefined;
}

/** The whole body; rejects as body-parser does when the client goes away before sending it. */
function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // The client may have gone while the token was checked: its close and error events are past,
    // and waiting for them would hold the request (and a stop) for ever.
    if (req.destroyed) return reject(new HttpError(400, 'bad_request', 'Request aborted'));
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => resolve(chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks)));
    req.once('error', () => reject(new HttpError(400, 'bad_request', 'Request aborted')));
    req.once('close', () => req.complete || reject(new HttpError(400, 'bad_request', 'Request aborted')));
  });
}

/** What body.ts's reader makes of the same bytes: `parse` mode's value, or `raw` mode's buffer. */
function decode(bytes: Buffer, mode: MountedRoute['mode']): unknown {
  if (!isUtf8(bytes)) throw new HttpError(400, 'malformed_json', NOT_UTF8);
  if (mode === 'raw') return bytes;
  let text = bytes.toString('utf8');
  // body-parser's decoder drops a byte-order mark.
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HttpError(400, 'malformed_json', MALFORMED_JSON);
  }
  if (deeperThan(value, MAX_JSON_DEPTH)) throw new HttpError(400, 'body_too_deep', TOO_DEEP);
  return value;
}

const JSON_CONTENT = 'application/json; charset=utf-8';

/** As Express's `res.status().json()`: one string written with its headers, the same headers. */
function sendJson(res: ServerResponse, status: number, value: unknown, extra: Record<string, string> = {}): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { ...extra, 'Content-Type': JSON_CONTENT, 'Content-Length': String(Buffer.byteLength(text)) });
  res.end(text);
}

/**
 * The ingest endpoints (single compose, batches, `/ingest-log`) without Express: the same route
 * work (mount.ts), authentication, body rules and error bodies, read and answered on node:http.
 * Express's router, body-parser and `res.json` were a large share of a compose's CPU time
 * (docs/performance.md#ingest-and-the-http-path). Anything out of the ordinary (no or a bad token,
 * a body it does not read, a stopping daemon) goes to Express untouched, as it always did.
 */
export function createLeanDispatcher(deps: LeanDeps, routes: readonly MountedRoute[]): LeanDispatcher {
  const matchers = routes.filter((r) => r.endpoint.method === 'POST').map(pathMatcher);

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
    if (res.headersSent) return void res.destroy();
    answerBeforeBody(req, res);
    sendJson(res, answer.status, answer.body, answer instanceof RetryLater ? answer.headers : {});
  }

  async function serve(
    req: IncomingMessage,
    res: ServerResponse,
    { route, params }: Matched,
    principal: Principal,
    bytes: number,
  ): Promise<void> {
    const admitted =
      bytes > deps.config.limits.largeBatchBytes && route.mode === 'raw' ? await admitLarge(req, res) : undefined;
    if (admitted === null) return;
    const body = decode(await readBody(req), route.mode);
    const result = await route.work({ params, query: {}, body }, principal);
    sendJson(res, route.endpoint.status, result);
  }

  /** body.ts's gate for large batches, with its 503; null when the request was answered or is gone. */
  async function admitLarge(req: IncomingMessage, res: ServerResponse): Promise<(() => void) | null> {
    const release = await deps.largeBodies.enter();
    if (!release) throw OVERLOADED;
    res.once('close', release);
    if (req.destroyed) {
      release();
      return null;
    }
    return release;
  }

  return (req, res, fallback) => {
    const matched = match(req);
    const token = matched && bearerToken(req.headers.authorization ?? '');
    const bytes = matched && plainJson(req, matched.route.endpoint.maxBody ?? deps.config.maxBody);
    if (!matched || !token || bytes === undefined) return fallback();
    // Counted from arrival until the answer is over and the work settled, as trackRequests does.
    let work: Promise<unknown> = Promise.resolve();
    void deps.inflight.track(new Promise((resolve) => res.once('close', resolve)).then(() => work));
    work = deps.tokens
      .verify(token)
      // A refused token is Express's to answer (and audit): nothing of the request was read yet.
      .then((verified) => ('failure' in verified ? fallback() : serve(req, res, matched, verified.principal, bytes)))
      .catch((error: unknown) => fail(req, res, req.url?.split('?')[0] ?? '', error));
  };
}
