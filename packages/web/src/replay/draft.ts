import {
  type HttpMethod,
  type HttpTrafficRecord,
  isSkippedHeader,
  jsonOrText,
  levelOf,
  placeholderOf,
  recordUrl,
  REDACTED,
  shellQuote,
  valuesOf,
} from '@tapline/shared/browser';
import type { ReplayAnswer } from './send.js';

/** The request as the user edits it in the replay panel: every field text. */
export interface ReplayDraft {
  readonly method: HttpMethod;
  readonly url: string;
  readonly headers: readonly (readonly [string, string])[];
  readonly body: string;
}

/** The recorded request as a first draft. HTTP/2 pseudo-headers (`:authority`) are no headers to edit. */
export function draftOf(record: HttpTrafficRecord): ReplayDraft {
  const body = record.request.body;
  return {
    method: record.method,
    url: recordUrl(record),
    headers: Object.entries(record.request.headers)
      .filter(([name]) => !name.startsWith(':'))
      .flatMap(([name, v]) => valuesOf(v).map((value) => [name, value] as const)),
    body: body === null ? '' : typeof body === 'string' ? body : JSON.stringify(body, null, 2),
  };
}

/**
 * Request headers a page's `fetch` does not send, whatever it is told (the Fetch standard's
 * forbidden request-header names: the browser sets them itself, or never from a script).
 */
const FORBIDDEN = new Set([
  'accept-charset',
  'accept-encoding',
  'access-control-request-headers',
  'access-control-request-method',
  'connection',
  'content-length',
  'cookie',
  'cookie2',
  'date',
  'dnt',
  'expect',
  'host',
  'keep-alive',
  'origin',
  'referer',
  'set-cookie',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'via',
]);
export const refusedByBrowser = (name: string): boolean => {
  const lower = name.trim().toLowerCase();
  return FORBIDDEN.has(lower) || lower.startsWith('proxy-') || lower.startsWith('sec-') || isSkippedHeader(lower);
};

/** Header names of the draft that will not be sent, each once, as written. */
export const unsentHeaders = (draft: ReplayDraft): string[] => [
  ...new Set(draft.headers.map(([n]) => n.trim()).filter((n) => n && refusedByBrowser(n))),
];

/**
 * What still holds `[REDACTED]` or a body placeholder: as the CLI's `traffic replay`, the panel
 * never sends a value the daemon did not keep; the user types each one in first.
 */
export function unsentValues(draft: ReplayDraft): string[] {
  const placeholder = placeholderOf(draft.body);
  return [
    ...draft.headers.filter(([n, v]) => v.includes(REDACTED) && !refusedByBrowser(n)).map(([n]) => `header ${n}`),
    ...(draft.url.includes(REDACTED) || draft.url.includes(encodeURIComponent(REDACTED)) ? ['the URL'] : []),
    ...(draft.body.includes(REDACTED) ? ['the body'] : []),
    ...(placeholder ? [`the body (recorded only as "${placeholder}")`] : []),
  ];
}

/** `http://localhost:3000`, or undefined for text that is no URL. */
export function originOf(text: string): string | undefined {
  try {
    return new URL(text.trim()).origin;
  } catch {
    return undefined;
  }
}

/** A browser's `fetch` throws when a GET is given a body. */
export const bodiless = (method: HttpMethod) => method === 'GET';

/** A draft `fetch` would refuse outright, said before anything is sent. */
export class DraftError extends Error {}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** The draft as `fetch` takes it: refused headers left out, a JSON content type for a body as the CLI adds. */
export function requestOf(draft: ReplayDraft): { url: URL; method: HttpMethod; init: RequestInit } {
  const origin = originOf(draft.url);
  if (!origin || !/^https?:/.test(origin))
    throw new DraftError(`"${draft.url}" is not an http(s) URL such as http://localhost:3000/orders`);
  const url = new URL(draft.url.trim());
  const method = draft.method;
  const headers = draft.headers
    .map(([n, v]) => [n.trim(), v.trim()] as const)
    .filter(([n]) => n && !refusedByBrowser(n))
    .map(([n, v]): [string, string] => [n, v]);
  const bad = headers.find(([n, v]) => !TOKEN.test(n) || /[\r\n\0]/.test(v));
  if (bad) throw new DraftError(`the header "${bad[0]}" is not a valid header name and value`);
  const body = bodiless(method) || draft.body === '' ? undefined : draft.body;
  if (body !== undefined && !headers.some(([n]) => n.toLowerCase() === 'content-type'))
    headers.push(['content-type', 'application/json']);
  return {
    url,
    method,
    init: {
      method,
      headers,
      ...(body === undefined ? {} : { body }),
      // The app's own answer, as the CLI shows it; and none of this browser's cookies for it.
      redirect: 'manual',
      credentials: 'omit',
      referrerPolicy: 'no-referrer',
    },
  };
}

/**
 * The same replay from a shell, for what a browser cannot do (CORS, refused headers): `tapline
 * traffic replay` with `--to` for another origin and a flag for each header or body edited.
 */
export function cliCommand(sourceId: string, record: HttpTrafficRecord, draft: ReplayDraft): string {
  const recorded = draftOf(record);
  const words = ['tapline', 'traffic', 'replay', sourceId, record.id];
  const origin = originOf(draft.url);
  if (origin && origin !== originOf(recorded.url)) words.push('--to', origin);
  const before = new Set(recorded.headers.map(([n, v]) => `${n.toLowerCase()}\n${v}`));
  for (const [name, value] of draft.headers)
    if (name.trim() && !before.has(`${name.trim().toLowerCase()}\n${value}`))
      words.push('--set-header', `${name.trim()}: ${value}`);
  if (draft.body !== recorded.body && draft.body !== '') words.push('--data', draft.body);
  return words.map(shellQuote).join(' ');
}

/**
 * The replay as a record, so that `diffRecords` (shared with `tapline traffic diff`) compares it
 * with the recorded one: the request as sent, the answer as read.
 */
export function replayedRecord(
  record: HttpTrafficRecord,
  sent: ReturnType<typeof requestOf>,
  answer: ReplayAnswer,
): HttpTrafficRecord {
  const headers: Record<string, string> = {};
  for (const [name, value] of new Headers(sent.init.headers).entries()) headers[name] = value;
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of sent.url.searchParams) {
    const had = query[name];
    query[name] = had === undefined ? value : [...valuesOf(had), value];
  }
  const body = typeof sent.init.body === 'string' ? jsonOrText(sent.init.body) : null;
  return {
    ...record,
    method: sent.method,
    protocol: sent.url.protocol === 'https:' ? 'HTTPS' : 'HTTP',
    domain: sent.url.host,
    pathname: sent.url.pathname,
    status: answer.status,
    level: levelOf(answer.status),
    elapsedTime: answer.elapsedTime,
    request: { ...record.request, headers, queryParams: query, body },
    response: { headers: answer.headers, body: answer.body },
  };
}
