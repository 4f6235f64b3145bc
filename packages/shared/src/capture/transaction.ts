import { HTTP_METHODS, type HttpMethod } from '../schemas/traffic-enums.js';
import type { ComposeRecordInput, JsonValue } from '../schemas/http-traffic.js';
import { pathnameOf } from '../record-rules.js';

/** A compose body before its source is known; the recorder fills `trafficSourceId` in. */
export type RecordBody = Omit<ComposeRecordInput, 'trafficSourceId'>;

/** Only the spec's five methods are recorded; others (HEAD, OPTIONS, ...) pass unrecorded and are counted. */
export function isRecordedMethod(method: string | undefined): method is HttpMethod {
  const upper = (method ?? '').toUpperCase();
  return HTTP_METHODS.some((m) => m === upper);
}

/** node:http headers (`IncomingHttpHeaders`, `OutgoingHttpHeaders`) as a record's header map. */
export function headerMap(
  headers: Readonly<Record<string, string | string[] | number | undefined>>,
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name] = Array.isArray(value) ? value.map(String) : String(value);
  }
  return out;
}

/** A header's single value, for content-type and content-encoding. */
export const headerValue = (value: string | string[] | number | undefined): string | undefined =>
  value === undefined ? undefined : Array.isArray(value) ? value.join(', ') : String(value);

/** Query parameters with repeated names as arrays, as compose bodies take them. */
export function queryMap(search: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [key, value] of search) {
    const seen = out[key];
    out[key] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return out;
}

/** One finished HTTP transaction as a proxy or middleware observed it. */
export interface ObservedTransaction {
  readonly method: string;
  /** The request target as received: path and query (`/orders?page=2`), or an absolute URL. */
  readonly url: string;
  /** The Host the client addressed; `localhost` when absent. */
  readonly host?: string | undefined;
  readonly protocol: 'HTTP' | 'HTTPS';
  readonly status: number;
  /** Milliseconds from the request's arrival to the response's end. */
  readonly elapsedTime: number;
  /** When the request arrived, in ms since the epoch (wall clock): the entry's `createdAt`. */
  readonly startedAt?: number | undefined;
  readonly requestHeaders: Readonly<Record<string, string | string[] | number | undefined>>;
  readonly responseHeaders: Readonly<Record<string, string | string[] | number | undefined>>;
  readonly requestBody: JsonValue;
  readonly responseBody: JsonValue;
  readonly trafficUserId?: string | null | undefined;
  /** The route template the app matched (`/users/:id`), when its framework tells (docs/statistics.md). */
  readonly route?: string | undefined;
}

/** The request target resolved against the domain; one parse (canParse then parse was two per record). */
function urlOf(target: string, domainUrl: string): URL {
  try {
    return new URL(target, domainUrl);
  } catch {
    return new URL(domainUrl);
  }
}

/**
 * The compose body of an observed transaction: the pathname alone in `pathnameUrl` (the query
 * goes to `queryParams`, per docs/decisions.md §5.8), `domainUrl` from the protocol and Host.
 * `null` for a method the spec does not record.
 */
export function toRecordBody(t: ObservedTransaction): RecordBody | null {
  if (!isRecordedMethod(t.method)) return null;
  const scheme = t.protocol === 'HTTPS' ? 'https' : 'http';
  const addressed = `${scheme}://${t.host || 'localhost'}`;
  const domainUrl = URL.canParse(addressed) ? addressed : `${scheme}://localhost`;
  const url = urlOf(t.url, domainUrl);
  return {
    domainUrl,
    pathnameUrl: pathnameOf(url),
    status: t.status,
    protocol: t.protocol,
    method: t.method.toUpperCase(),
    elapsedTime: Math.max(0, Math.round(t.elapsedTime * 1000) / 1000),
    ...(t.trafficUserId ? { trafficUserId: t.trafficUserId } : {}),
    requestHeaders: headerMap(t.requestHeaders),
    requestBody: t.requestBody,
    queryParams: queryMap(url.searchParams),
    responseHeaders: headerMap(t.responseHeaders),
    responseBody: t.responseBody,
    ...(t.startedAt !== undefined && Number.isFinite(t.startedAt)
      ? { startedAt: new Date(t.startedAt).toISOString() }
      : {}),
    ...(t.route ? { route: t.route } : {}),
  };
}
