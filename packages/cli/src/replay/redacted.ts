import { formatPath, placeholderOf, REDACTED, type HttpTrafficRecord, type JsonValue } from '@tapline/shared';

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

/**
 * Why a curl command built from the record (which has no way to ask) does not send what was sent:
 * redacted values, and a body kept only as a placeholder. Empty when it does.
 */
export function curlWarnings(request: HttpTrafficRecord['request']): string[] {
  const places = describePlaces(redactedPlaces(request));
  const placeholder = placeholderOf(request.body);
  return [
    ...(places
      ? [`redacted when recorded, so not replayed as sent: ${places}; \`tapline traffic replay\` can fill them in`]
      : []),
    ...(placeholder
      ? [
          `the body was not kept whole, so the command sends its placeholder ("${placeholder}"); \`tapline traffic replay --data\` sends a body you give`,
        ]
      : []),
  ];
}
