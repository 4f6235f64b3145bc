import { recordUrl, SKIPPED_HEADERS, type HttpTrafficRecord } from '@tapline/shared';
import { usage } from '../exit-codes.js';
import { redactedPlaces, valuesOf } from './redacted.js';

/** What the user changes of the recorded request. */
export interface ReplayChanges {
  /** Base URL that replaces the recorded origin: `http://localhost:3000` or `http://staging/api`. */
  readonly to?: string;
  /** `name: value` pairs; they replace recorded headers of the same name (any case). */
  readonly setHeaders?: readonly string[];
  /** `name=value` pairs; they replace recorded query parameters of the same name. */
  readonly setQuery?: readonly string[];
  /** The whole request body, as JSON text. */
  readonly data?: string;
}

/** The request to send, ready for fetch. */
export interface ReplayRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: readonly (readonly [string, string])[];
  readonly body: string | null;
}

const split = (pair: string, sep: string, flag: string, shape: string): [string, string] => {
  const at = pair.indexOf(sep);
  const name = at > 0 ? pair.slice(0, at).trim() : '';
  if (!name || /[\s:]/.test(name)) throw usage(`${flag} "${pair}" is not ${shape}`);
  return [name, pair.slice(at + 1).trim()];
};

const each = (values: Readonly<Record<string, string | readonly string[]>>) =>
  Object.entries(values).flatMap(([name, v]) => valuesOf(v).map((value): [string, string] => [name, value]));

/**
 * The recorded request as it will be sent again. A value the daemon redacted is never sent as
 * `[REDACTED]`: unless the user gives each one, this refuses (exit 2), naming them all.
 */
export function buildReplay(record: Pick<HttpTrafficRecord, 'method' | 'protocol' | 'domain' | 'pathname' | 'request'>, changes: ReplayChanges): ReplayRequest {
  const headers = (changes.setHeaders ?? []).map((pair) => split(pair, ':', '--set-header', 'name: value'));
  const query = (changes.setQuery ?? []).map((pair) => split(pair, '=', '--set-query', 'name=value'));
  let body: string | null = null;
  if (changes.data !== undefined) {
    try {
      JSON.parse(changes.data);
    } catch {
      throw usage('--data must be JSON (a string body is a JSON string: \'"text"\')');
    }
    body = changes.data;
  }
  refuseRedacted(record.request, headers, query, changes.data !== undefined);

  const setHeader = new Set(headers.map(([n]) => n.toLowerCase()));
  const setQuery = new Set(query.map(([n]) => n));
  const recorded = record.request.body;
  if (body === null && recorded !== null && recorded !== undefined) body = typeof recorded === 'string' ? recorded : JSON.stringify(recorded);
  const sent = [...each(record.request.headers).filter(([n]) => !SKIPPED_HEADERS.has(n.toLowerCase()) && !setHeader.has(n.toLowerCase())), ...headers];
  if (body !== null && !sent.some(([n]) => n.toLowerCase() === 'content-type')) sent.push(['content-type', 'application/json']);

  const url = new URL(recordUrl({ ...record, request: { ...record.request, queryParams: {} } }));
  if (changes.to) {
    const to = parseTo(changes.to);
    url.protocol = to.protocol;
    url.host = to.host;
    url.pathname = `${to.pathname.replace(/\/+$/, '')}${url.pathname}`;
  }
  for (const [name, value] of each(record.request.queryParams)) if (!setQuery.has(name)) url.searchParams.append(name, value);
  for (const [name, value] of query) url.searchParams.append(name, value);
  return { method: record.method, url: url.toString(), headers: sent, body };
}

function parseTo(text: string): URL {
  try {
    const url = new URL(text);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url;
  } catch {
    // Falls through to the usage error.
  }
  throw usage(`--to must be an http(s) URL such as http://localhost:3000 (got "${text}")`);
}

function refuseRedacted(request: HttpTrafficRecord['request'], headers: readonly [string, string][], query: readonly [string, string][], data: boolean): void {
  const places = redactedPlaces(request);
  const given = new Set(headers.map(([n]) => n.toLowerCase()));
  const missing = [
    ...places.headers.filter((h) => !given.has(h.toLowerCase())).map((h) => `header ${h}: --set-header '${h}: <value>'`),
    ...places.query.filter((q) => !query.some(([n]) => n === q)).map((q) => `query ${q}: --set-query '${q}=<value>'`),
    ...(data ? [] : places.body.map((b) => `body ${b}: --data '<the whole body as JSON>'`)),
  ];
  if (missing.length) {
    throw usage(`the recorded request has ${missing.length} redacted value${missing.length > 1 ? 's' : ''}, and "[REDACTED]" is never sent; give each:`, missing.join('\n  '));
  }
}
