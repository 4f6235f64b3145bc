import express, { type RequestHandler } from 'express';
import { HttpError } from './errors.js';

const JSON_TYPE = /^application\/(?:[\w.+-]*\+)?json\s*(?:;|$)/i;

function carriesBody(headers: Record<string, string | string[] | undefined>): boolean {
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
}

/** Deeper JSON would overflow the stack of the recursive validators and the redactor (a 500). */
export const MAX_JSON_DEPTH = 256;

/**
 * Recursion stops at `max` levels, so a hostile body cannot overflow this check either; it
 * allocates nothing, which mattered for batches of a thousand records.
 */
function deeperThan(value: unknown, max: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (max === 0) return true;
  for (const key in value) if (deeperThan((value as Record<string, unknown>)[key], max - 1)) return true;
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
