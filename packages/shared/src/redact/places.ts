import { formatPath } from '../diff/path.js';
import type { HttpTrafficRecord, JsonValue } from '../schemas/http-traffic.js';
import { REDACTED } from './keys.js';

// What a replay must not send as recorded; the CLI's `traffic replay` and the web UI's replay
// panel both name these places.

/** Where the daemon stored `[REDACTED]` in place of a secret, in a recorded request. */
export interface RedactedPlaces {
  /** Header names, as recorded. */
  readonly headers: readonly string[];
  /** Query parameter names. */
  readonly query: readonly string[];
  /** Paths into the body, such as `user.password`. */
  readonly body: readonly string[];
}

type Values = Readonly<Record<string, string | readonly string[]>>;
export const valuesOf = (v: string | readonly string[]): readonly string[] => (typeof v === 'string' ? [v] : v);
const redactedNames = (values: Values) =>
  Object.entries(values)
    .filter(([, v]) => valuesOf(v).some((value) => value.includes(REDACTED)))
    .map(([name]) => name);

function bodyPaths(value: JsonValue, at: (string | number)[] = []): string[] {
  if (typeof value === 'string')
    return value.includes(REDACTED) ? [at.length ? formatPath(at) : '(the whole body)'] : [];
  if (Array.isArray(value)) return value.flatMap((item, i) => bodyPaths(item, [...at, i]));
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([key, item]) => (item === undefined ? [] : bodyPaths(item, [...at, key])));
  return [];
}

export function redactedPlaces(request: HttpTrafficRecord['request']): RedactedPlaces {
  return {
    headers: redactedNames(request.headers),
    query: redactedNames(request.queryParams),
    body: bodyPaths(request.body),
  };
}

/** `header authorization, query token, body user.password`, or '' when nothing was redacted. */
export function describePlaces(places: RedactedPlaces): string {
  return [
    ...places.headers.map((h) => `header ${h}`),
    ...places.query.map((q) => `query ${q}`),
    ...places.body.map((b) => `body ${b}`),
  ].join(', ');
}
