import express, { type RequestHandler } from 'express';
import { HttpError } from './errors.js';

const JSON_TYPE = /^application\/(?:[\w.+-]*\+)?json\s*(?:;|$)/i;

function carriesBody(headers: Record<string, string | string[] | undefined>): boolean {
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
}

/** Deeper JSON would overflow the stack of the recursive validators and the redactor (a 500). */
export const MAX_JSON_DEPTH = 256;

/** Walks with its own stack, so a hostile body cannot overflow this check either. */
function deeperThan(value: unknown, max: number): boolean {
  const pending: Array<[unknown, number]> = [[value, 1]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [item, depth] = next;
    if (item === null || typeof item !== 'object') continue;
    if (depth > max) return true;
    for (const inner of Object.values(item)) pending.push([inner, depth + 1]);
  }
  return false;
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
    parser(req, res, (error?: unknown) => {
      if (error) return next(error);
      if (deeperThan(req.body, MAX_JSON_DEPTH)) return next(new HttpError(400, `JSON in the request body is nested deeper than ${MAX_JSON_DEPTH} levels`));
      next();
    });
  };
}
