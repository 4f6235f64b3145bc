import { isUtf8 } from 'node:buffer';
import express, { type Request, type RequestHandler, type Response } from 'express';
import type { ServerDeps } from './server-deps.js';
import { BODY_TOO_LARGE, HttpError, OVERLOADED } from './errors.js';
import { deeperThan, MAX_JSON_DEPTH, TOO_DEEP } from './json-depth.js';
import { carriesBody } from './linger.js';

export const JSON_TYPE = /^application\/(?:[\w.+-]*\+)?json\s*(?:;|$)/i;

type Headers = Record<string, string | string[] | undefined>;

/**
 * A body whose declared length is over the limit (as body-parser counts it: an uncompressed body)
 * is refused before any of it is read, where body-parser read it all first; the refusal lingers
 * instead (linger.ts), within bounds.
 */
export function declaredOver(headers: Headers, limit: number): boolean {
  const encoding = headers['content-encoding'];
  const plain = encoding === undefined || (typeof encoding === 'string' && encoding.toLowerCase() === 'identity');
  return plain && headers['transfer-encoding'] === undefined && Number(headers['content-length'] ?? 0) > limit;
}

/**
 * What the reader does with a JSON body: `parse` it into `req.body`; keep it `raw`, a Buffer
 * still to be parsed (the batch endpoint parses in a worker thread); or `none` for endpoints
 * that take no body, where only the type is checked and nothing is read.
 */
export type BodyMode = 'parse' | 'raw' | 'none';

export const CHARSET = /;\s*charset\s*=/i;
export const UTF8 = /;\s*charset\s*=\s*"?utf-?8"?\s*(?:;|$)/i;

export const NOT_UTF8 = 'Request body is not valid UTF-8';

/**
 * The decoders replace bytes that are not UTF-8 with U+FFFD, so a record would be stored other
 * than it was sent and still answered 201; refusing the body keeps what is stored what was sent.
 * A `charset` other than UTF-8 (the parsing reader decodes UTF-16 too) is left to its decoder.
 */
function checkUtf8(_req: unknown, _res: unknown, buffer: Buffer, encoding: string | null | undefined): void {
  // The raw reader passes no encoding: its body is decoded as UTF-8 later, so it must be UTF-8.
  if ((!encoding || /^utf-?8$/i.test(encoding)) && !isUtf8(buffer)) throw new Error(NOT_UTF8);
}

const isVerifyFailure = (error: unknown) =>
  typeof error === 'object' && error !== null && 'type' in error && error.type === 'entity.verify.failed';

/**
 * Reads a JSON body: 415 for a body that is not JSON, 413 past `limit` bytes, 400 for malformed
 * JSON or bytes that are not UTF-8. A request without a body is fine here; the endpoint's schema decides if it needed one.
 */
export function jsonBody(
  limit: number,
  mode: BodyMode,
  deps: Pick<ServerDeps, 'largeBodies' | 'config'>,
): RequestHandler {
  const parser =
    mode === 'raw'
      ? express.raw({ limit, type: () => true, verify: checkUtf8 })
      : express.json({ limit, strict: false, type: () => true, verify: checkUtf8 });
  return (req, res, next) => {
    if (!carriesBody(req.headers)) {
      req.body = undefined;
      return next();
    }
    const type = req.headers['content-type'] ?? '';
    if (!JSON_TYPE.test(type))
      return next(new HttpError(415, 'unsupported_media_type', 'Content-Type must be application/json'));
    if (mode === 'none') return next();
    // The parsing reader decodes any utf-* charset; a raw body is decoded as UTF-8 later, so say so now.
    if (mode === 'raw' && CHARSET.test(type) && !UTF8.test(type))
      return next(new HttpError(415, 'unsupported_media_type', 'Unsupported charset; send UTF-8 JSON'));
    if (declaredOver(req.headers, limit)) return next(BODY_TOO_LARGE);
    const read = () =>
      parser(req, res, (error?: unknown) => {
        if (isVerifyFailure(error)) return next(new HttpError(400, 'malformed_json', NOT_UTF8));
        if (error) return next(error);
        if (mode === 'parse' && deeperThan(req.body, MAX_JSON_DEPTH))
          return next(new HttpError(400, 'body_too_deep', TOO_DEEP));
        next();
      });
    if (mode === 'raw' && isLarge(req, deps.config.limits.largeBatchBytes)) admitLarge(req, res, deps, read, next);
    else read();
  };
}

/** Chunked bodies have no length up front; they may be large. */
const isLarge = (req: Request, bytes: number) =>
  req.headers['content-length'] === undefined || Number(req.headers['content-length']) > bytes;

/**
 * A large body is read only once the gate lets it in, and holds its place until the answer is
 * gone: reading, parsing and storing one costs many times its size in memory, so the number of
 * them at once is what bounds the daemon's memory. Waiting clients' bytes stay in their sockets.
 */
function admitLarge(
  req: Request,
  res: Response,
  deps: Pick<ServerDeps, 'largeBodies' | 'config'>,
  read: () => void,
  next: (error?: unknown) => void,
): void {
  deps.largeBodies.enter().then((release) => {
    if (!release) return next(OVERLOADED);
    res.once('close', release);
    if (req.destroyed) return release();
    read();
  }, next);
}
