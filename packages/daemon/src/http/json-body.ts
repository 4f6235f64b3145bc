import { HttpError, MALFORMED_JSON } from './errors.js';

/** Deeper JSON would overflow the stack of the recursive validators and the redactor (a 500). */
export const MAX_JSON_DEPTH = 256;
export const TOO_DEEP = `JSON in the request body is nested deeper than ${MAX_JSON_DEPTH} levels`;
export const NOT_UTF8 = 'Request body is not valid UTF-8';

/**
 * Recursion stops at `max` levels, so a hostile body cannot overflow this check either; it
 * allocates nothing, which mattered for batches of a thousand records.
 */
export function deeperThan(value: unknown, max: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (max === 0) return true;
  // Reflect.get reads a member of any object without a copy (Object.values would allocate).
  for (const key in value) if (deeperThan(Reflect.get(value, key), max - 1)) return true;
  return false;
}

/**
 * JSON text as every body reader takes it (read-body.ts, and the batch's worker thread in
 * ingest/prepare.ts): one leading byte-order mark dropped, as body-parser's decoder does; 400 when
 * it does not parse or nests deeper than MAX_JSON_DEPTH. Free of Express, so the worker thread
 * can load it.
 */
export function parseJson(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    throw new HttpError(400, 'malformed_json', MALFORMED_JSON);
  }
  if (deeperThan(value, MAX_JSON_DEPTH)) throw new HttpError(400, 'body_too_deep', TOO_DEEP);
  return value;
}
