import {
  isSkippedHeader,
  placeholderOf,
  recordUrl,
  redactedPlaces,
  valuesOf,
  type HttpTrafficRecord,
} from '@tapline/shared';
import { usage } from '../exit-codes.js';

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
 * The recorded request as it will be sent again. What was not recorded as sent is never sent in
 * its place: a value the daemon redacted (`[REDACTED]`), or a body kept only as a placeholder
 * (binary, or cut at `--max-body`). Unless the user gives each one, this refuses (exit 2), naming
 * them all.
 */
export function buildReplay(
  record: Pick<HttpTrafficRecord, 'method' | 'protocol' | 'domain' | 'pathname' | 'request'>,
  changes: ReplayChanges,
): ReplayRequest {
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
  refuseUnsent(record.request, headers, query, changes.data !== undefined);

  const setHeader = new Set(headers.map(([n]) => n.toLowerCase()));
  const setQuery = new Set(query.map(([n]) => n));
  const recorded = record.request.body;
  if (body === null && recorded !== null && recorded !== undefined)
    body = typeof recorded === 'string' ? recorded : JSON.stringify(recorded);
  const sent = [
    ...each(record.request.headers).filter(([n]) => !isSkippedHeader(n) && !setHeader.has(n.toLowerCase())),
    ...headers,
  ];
  if (body !== null && !sent.some(([n]) => n.toLowerCase() === 'content-type'))
    sent.push(['content-type', 'application/json']);

  const url = new URL(recordUrl({ ...record, request: { ...record.request, queryParams: {} } }));
  if (changes.to) {
    const to = parseTo(changes.to);
    url.protocol = to.protocol;
    url.host = to.host;
    url.pathname = `${to.pathname.replace(/\/+$/, '')}${url.pathname}`;
  }
  for (const [name, value] of each(record.request.queryParams))
    if (!setQuery.has(name)) url.searchParams.append(name, value);
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

const DATA = "--data '<the whole body as JSON>'";

function refuseUnsent(
  request: HttpTrafficRecord['request'],
  headers: readonly [string, string][],
  query: readonly [string, string][],
  data: boolean,
): void {
  const places = redactedPlaces(request);
  const placeholder = data ? null : placeholderOf(request.body);
  const given = new Set(headers.map(([n]) => n.toLowerCase()));
  const redacted = [
    ...places.headers
      .filter((h) => !given.has(h.toLowerCase()))
      .map((h) => `header ${h}: --set-header '${h}: <value>'`),
    ...places.query.filter((q) => !query.some(([n]) => n === q)).map((q) => `query ${q}: --set-query '${q}=<value>'`),
    // A placeholder body needs the whole body anyway: one line for it says so.
    ...(data || placeholder ? [] : places.body.map((b) => `body ${b}: ${DATA}`)),
  ];
  const missing = [...redacted, ...(placeholder ? [`body, recorded only as "${placeholder}": ${DATA}`] : [])];
  if (!missing.length) return;
  const values = `${redacted.length} redacted value${redacted.length > 1 ? 's' : ''}`;
  const problem = !placeholder
    ? `the recorded request has ${values}, and "[REDACTED]" is never sent; give each:`
    : redacted.length
      ? `the recorded request has ${values} and a body Tapline did not keep whole, and neither is ever sent; give each:`
      : 'the recorded body is a placeholder (Tapline did not keep it whole), and a placeholder is never sent; give the body:';
  throw usage(problem, missing.join('\n  '));
}
