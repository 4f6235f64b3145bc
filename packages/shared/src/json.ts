import type { JsonValue } from './schemas/http-traffic.js';

/**
 * `JSON.parse` typed as what it returns. Throws on text that is not JSON, as `JSON.parse` does.
 * Zod-free: the middleware's bundle uses it.
 */
export function parseJson(text: string): JsonValue {
  // lib.d.ts types JSON.parse as `any` for the sake of revivers; without one, JSON text can only
  // parse to a JSON value, which the compiler cannot know.
  // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- see above
  return JSON.parse(text) as JsonValue;
}

/** An answer's body as a replay shows it: parsed when it is JSON, else the text; null when empty. */
export function jsonOrText(text: string): JsonValue {
  if (!text) return null;
  try {
    return parseJson(text);
  } catch {
    return text;
  }
}

/** An object whose members can be read by name (arrays included, as `typeof` says). */
export const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === 'object' && value !== null;

/** A value JSON can carry: what `JSON.parse` gives back, with no `undefined`, function or class instance in it. */
export function isJsonValue(value: unknown): value is JsonValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isJsonValue);
  if (typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return false;
  return Object.values(value).every(isJsonValue);
}
