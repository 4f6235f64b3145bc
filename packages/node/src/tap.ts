import { expressRoute } from './route.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import {
  captureBody,
  createBodyCollector,
  cutText,
  describeBinary,
  headerValue,
  parseJson,
  type JsonValue,
  type ObservedTransaction,
} from '@tapline/shared';

/** The bytes of one request and its response, seen as the application reads and writes them. */
export interface Tap {
  /** Resolves once the response finished, with what a record needs; `null` when the client went away first. */
  readonly done: Promise<ObservedTransaction | null>;
}

/**
 * Watches a request and its response without changing either: request chunks are seen through
 * `emit('data')` (which both flowing and paused reads go through, so the application's reading
 * is untouched), response chunks through `write`/`end`. Only `maxBytes` (plus slack) of each body
 * is kept. `res.write` is wrapped once per response, before inner middleware (such as
 * compression) wraps it in turn, so the bytes seen are the ones on the wire.
 */
export function tap(req: IncomingMessage, res: ServerResponse, maxBytes: number): Tap {
  const started = performance.now();
  const startedAt = Date.now();
  const requestBytes = createBodyCollector(maxBytes);
  const responseBytes = createBodyCollector(maxBytes);

  // eslint-disable-next-line @typescript-eslint/unbound-method -- kept to be re-applied with its own `this` below
  const emit = req.emit;
  req.emit = function (this: IncomingMessage, event: string | symbol, ...args: unknown[]): boolean {
    if (event === 'data') see(requestBytes, args[0]);
    return Reflect.apply(emit, this, [event, ...args]);
  };

  // eslint-disable-next-line @typescript-eslint/unbound-method -- kept to be re-applied with its own `this` below
  const write: PassThrough<boolean> = res.write;
  res.write = function (this: ServerResponse, ...args: unknown[]): boolean {
    see(responseBytes, args[0], args[1]);
    return Reflect.apply(write, this, args);
  };
  // eslint-disable-next-line @typescript-eslint/unbound-method -- kept to be re-applied with its own `this` below
  const end: PassThrough<ServerResponse> = res.end;
  res.end = function (this: ServerResponse, ...args: unknown[]): ServerResponse {
    see(responseBytes, args[0], args[1]);
    return Reflect.apply(end, this, args);
  };

  const done = new Promise<ObservedTransaction | null>((resolve) => {
    let finished = false;
    res.once('finish', () => {
      finished = true;
      const elapsedTime = performance.now() - started;
      void requestRead(req)
        .then(() => describe(req, res, { elapsedTime, startedAt }, requestBytes, responseBytes, maxBytes))
        .then(resolve, () => resolve(null));
    });
    res.once('close', () => {
      if (!finished) resolve(null);
    });
  });
  return { done };
}

type Collector = ReturnType<typeof createBodyCollector>;

/**
 * `res.write` or `res.end` as the wrappers call it: with the caller's arguments, passed through
 * untouched. Written as a method signature, whose parameters TypeScript compares both ways, so
 * node's overloads fit it without restating them.
 */
type PassThrough<R> = { method(this: ServerResponse, ...args: unknown[]): R }['method'];

/** A TLS socket says so in `encrypted`; a plain one has no such member. */
const isEncrypted = (socket: Socket) => 'encrypted' in socket && socket.encrypted === true;

/** How long a finished response waits for the unread rest of its request body. */
const UNREAD_BODY_WAIT_MS = 1000;

/**
 * A body the application never read is drained by node:http once the response finishes, through
 * the same `emit('data')`; waiting for its end lets the record show it too.
 */
function requestRead(req: IncomingMessage): Promise<void> {
  if (req.readableEnded || req.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, UNREAD_BODY_WAIT_MS);
    timer.unref();
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    req.once('end', done);
    req.once('close', done);
  });
}

function see(collector: Collector, chunk: unknown, encoding?: unknown): void {
  if (typeof chunk === 'string')
    collector.push(chunk, typeof encoding === 'string' && Buffer.isEncoding(encoding) ? encoding : 'utf8');
  else if (chunk instanceof Uint8Array) collector.push(chunk);
}

async function describe(
  req: IncomingMessage,
  res: ServerResponse,
  timing: { readonly elapsedTime: number; readonly startedAt: number },
  requestBytes: Collector,
  responseBytes: Collector,
  maxBytes: number,
): Promise<ObservedTransaction> {
  const responseHeaders = res.getHeaders();
  const [requestBody, responseBody] = await Promise.all([
    requestBytes.size > 0
      ? captureBody({
          body: requestBytes.bytes(),
          totalBytes: requestBytes.size,
          contentType: req.headers['content-type'],
          contentEncoding: req.headers['content-encoding'],
          maxBytes,
        })
      : parsedBody(req, maxBytes),
    captureBody({
      body: responseBytes.bytes(),
      totalBytes: responseBytes.size,
      contentType: headerValue(responseHeaders['content-type']),
      contentEncoding: headerValue(responseHeaders['content-encoding']),
      maxBytes,
    }),
  ]);
  // Express adds `protocol` and `originalUrl` (the URL before routers strip their mount path).
  const protocol =
    'protocol' in req && typeof req.protocol === 'string' ? req.protocol : isEncrypted(req.socket) ? 'https' : 'http';
  return {
    method: req.method ?? 'GET',
    url: 'originalUrl' in req && typeof req.originalUrl === 'string' ? req.originalUrl : (req.url ?? '/'),
    host: req.headers.host,
    protocol: protocol === 'https' ? 'HTTPS' : 'HTTP',
    status: res.statusCode,
    ...timing,
    requestHeaders: req.headers,
    responseHeaders,
    requestBody,
    responseBody,
    route: expressRoute(req),
  };
}

/**
 * When a body parser ran before this middleware, the stream was read before we could watch it;
 * what the parser made of it (`req.body`) is the next best thing. Buffers are described, never stored.
 */
function parsedBody(req: IncomingMessage, maxBytes: number): JsonValue {
  const body: unknown = 'body' in req ? req.body : undefined;
  if (body === undefined || body === null) return null;
  if (body instanceof Uint8Array) return describeBinary(req.headers['content-type'], body.length);
  try {
    const json = JSON.stringify(body);
    if (json === undefined) return null;
    const size = Buffer.byteLength(json);
    // The whole body is at hand: redacted whole, then cut (a cut JSON text escapes the daemon's key redaction).
    return size <= maxBytes ? parseJson(json) : cutText(json, maxBytes, size);
  } catch {
    return null;
  }
}
