import express, { type RequestHandler } from 'express';
import { HttpError } from './errors.js';

const JSON_TYPE = /^application\/(?:[\w.+-]*\+)?json\s*(?:;|$)/i;

function carriesBody(headers: Record<string, string | string[] | undefined>): boolean {
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
}

/**
 * Reads a JSON body: 415 for a body that is not JSON, 413 past `limit` bytes, 400 for malformed
 * JSON. A request without a body is fine here; the endpoint's schema decides if it needed one.
 * `parse: false` is for endpoints that take no body: the type is still checked, nothing is read.
 */
export function jsonBody(limit: number, parse: boolean): RequestHandler {
  const parser = express.json({ limit, strict: false, type: () => true });
  return (req, res, next) => {
    if (!carriesBody(req.headers)) {
      req.body = undefined;
      return next();
    }
    if (!JSON_TYPE.test(req.headers['content-type'] ?? '')) {
      return next(new HttpError(415, 'Content-Type must be application/json'));
    }
    if (!parse) return next();
    parser(req, res, next);
  };
}
