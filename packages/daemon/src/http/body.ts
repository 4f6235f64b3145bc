import express, { type RequestHandler } from 'express';
import { HttpError } from './errors.js';
import { deeperThan, MAX_JSON_DEPTH, TOO_DEEP } from './json-depth.js';

const JSON_TYPE = /^application\/(?:[\w.+-]*\+)?json\s*(?:;|$)/i;

function carriesBody(headers: Record<string, string | string[] | undefined>): boolean {
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
}

/**
 * What the reader does with a JSON body: `parse` it into `req.body`; keep it `raw`, a Buffer
 * still to be parsed (the batch endpoint parses in a worker thread); or `none` for endpoints
 * that take no body, where only the type is checked and nothing is read.
 */
export type BodyMode = 'parse' | 'raw' | 'none';

const CHARSET = /;\s*charset\s*=/i;
const UTF8 = /;\s*charset\s*=\s*"?utf-?8"?\s*(?:;|$)/i;

/**
 * Reads a JSON body: 415 for a body that is not JSON, 413 past `limit` bytes, 400 for malformed
 * JSON. A request without a body is fine here; the endpoint's schema decides if it needed one.
 */
export function jsonBody(limit: number, mode: BodyMode): RequestHandler {
  const parser = mode === 'raw' ? express.raw({ limit, type: () => true }) : express.json({ limit, strict: false, type: () => true });
  return (req, res, next) => {
    if (!carriesBody(req.headers)) {
      req.body = undefined;
      return next();
    }
    const type = req.headers['content-type'] ?? '';
    if (!JSON_TYPE.test(type)) return next(new HttpError(415, 'unsupported_media_type', 'Content-Type must be application/json'));
    if (mode === 'none') return next();
    // The parsing reader decodes any utf-* charset; a raw body is decoded as UTF-8 later, so say so now.
    if (mode === 'raw' && CHARSET.test(type) && !UTF8.test(type)) return next(new HttpError(415, 'unsupported_media_type', 'Unsupported charset; send UTF-8 JSON'));
    parser(req, res, (error?: unknown) => {
      if (error) return next(error);
      if (mode === 'parse' && deeperThan(req.body, MAX_JSON_DEPTH)) return next(new HttpError(400, 'body_too_deep', TOO_DEEP));
      next();
    });
  };
}
