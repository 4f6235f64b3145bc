import { STATUS_CODES } from 'node:http';
import type { HttpTrafficRecord, JsonValue } from '@tapline/shared';

type Headers = Record<string, string | string[]>;

interface NameValue {
  readonly name: string;
  readonly value: string;
}

/** A header or query map as HAR's list of pairs; an array value is one pair per element. */
const pairs = (map: Headers): NameValue[] =>
  Object.entries(map).flatMap(([name, value]) =>
    (Array.isArray(value) ? value : [value]).map((v) => ({ name, value: v })),
  );

const headerOf = (headers: Headers, name: string): string | undefined => {
  const found = Object.entries(headers).find(([key]) => key.toLowerCase() === name);
  return found === undefined ? undefined : Array.isArray(found[1]) ? found[1].join(', ') : found[1];
};

/** A stored body as HAR text: text bodies as they were, JSON values as JSON; `[REDACTED]` values stay so. */
function bodyText(body: JsonValue | null): string | undefined {
  if (body === null) return undefined;
  return typeof body === 'string' ? body : JSON.stringify(body);
}

const mimeOf = (headers: Headers, body: JsonValue | null) =>
  headerOf(headers, 'content-type') ??
  (body === null ? 'x-unknown' : typeof body === 'string' ? 'text/plain' : 'application/json');

/**
 * One record as a HAR 1.2 entry. Sizes Tapline does not know are -1, as HAR says; the time is
 * all `wait`. Tapline's own fields go under `_tapline` (HAR allows custom fields starting with _).
 */
export function harEntry(record: HttpTrafficRecord): object {
  const query = new URLSearchParams(
    pairs(record.request.queryParams).map((p): [string, string] => [p.name, p.value]),
  ).toString();
  const requestText = bodyText(record.request.body);
  const responseText = bodyText(record.response.body);
  return {
    startedDateTime: record.createdAt,
    time: record.elapsedTime,
    request: {
      method: record.method,
      url: `${record.protocol.toLowerCase()}://${record.domain}${record.pathname}${query ? `?${query}` : ''}`,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: pairs(record.request.headers),
      queryString: pairs(record.request.queryParams),
      ...(requestText !== undefined
        ? { postData: { mimeType: mimeOf(record.request.headers, record.request.body), text: requestText } }
        : {}),
      headersSize: -1,
      bodySize: requestText === undefined ? 0 : Buffer.byteLength(requestText),
    },
    response: {
      status: record.status,
      statusText: STATUS_CODES[record.status] ?? '',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: pairs(record.response.headers),
      content: {
        size: responseText === undefined ? 0 : Buffer.byteLength(responseText),
        mimeType: mimeOf(record.response.headers, record.response.body),
        ...(responseText !== undefined ? { text: responseText } : {}),
      },
      redirectURL: headerOf(record.response.headers, 'location') ?? '',
      headersSize: -1,
      bodySize: -1,
    },
    cache: {},
    timings: { send: 0, wait: record.elapsedTime, receive: 0 },
    _tapline: {
      id: record.id,
      level: record.level,
      ...(record.route ? { route: record.route } : {}),
      ...(record.trafficUserId ? { trafficUserId: record.trafficUserId } : {}),
    },
  };
}
