import { REDACTED } from './redact/keys.js';
import type { HttpTrafficRecord } from './schemas/http-traffic.js';

/** Quotes one word for POSIX shells: single quotes keep everything literal, newlines included. */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * Headers a replay must not send as recorded: hop-by-hop ones (RFC 9110 7.6.1), those curl and
 * fetch derive from the URL and body themselves (a stale Content-Length would corrupt the
 * request), and `Expect`, which curl adds to bodies of 1 MB and more and Node's fetch refuses
 * (UND_ERR_NOT_SUPPORTED); the client sending the replay decides whether to wait for a 100.
 */
export const SKIPPED_HEADERS: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'http2-settings',
  'host',
  'content-length',
  'expect',
]);

/** Whether a recorded header is left out of a replay: the set above, and HTTP/2 pseudo-headers (`:authority`). */
export const isSkippedHeader = (name: string): boolean =>
  name.startsWith(':') || SKIPPED_HEADERS.has(name.toLowerCase());

type Values = Readonly<Record<string, string | readonly string[]>>;
const each = (values: Values) =>
  Object.entries(values).flatMap(([name, v]) =>
    (typeof v === 'string' ? [v] : v).map((value) => [name, value] as const),
  );

/** `https://shop.example.com/api/orders?page=2`: the URL the recorded request went to. */
export function recordUrl(record: Pick<HttpTrafficRecord, 'protocol' | 'domain' | 'pathname' | 'request'>): string {
  const search = new URLSearchParams();
  for (const [name, value] of each(record.request.queryParams)) search.append(name, value);
  const query = search.toString();
  return `${record.protocol.toLowerCase()}://${record.domain}${record.pathname}${query ? `?${query}` : ''}`;
}

/**
 * A curl command that replays the recorded request: method, URL, headers (minus redacted and
 * hop-by-hop ones) and body. Every word is shell-quoted, so any recorded text is safe to run.
 */
export function toCurl(
  record: Pick<HttpTrafficRecord, 'method' | 'protocol' | 'domain' | 'pathname' | 'request'>,
): string {
  const url = recordUrl(record);
  // curl would otherwise expand [] and {} as globs and squash /../ in the recorded path.
  const flags = [
    ...(/[[\]{}]/.test(url) ? ['--globoff'] : []),
    ...(/\/\.\.?(\/|$)/.test(record.pathname) ? ['--path-as-is'] : []),
  ];
  const words: string[][] = [['curl', ...flags, '-X', record.method, url]];
  for (const [name, value] of each(record.request.headers)) {
    if (isSkippedHeader(name) || value.includes(REDACTED)) continue;
    words.push(['-H', `${name}: ${value}`]);
  }
  const body = record.request.body;
  if (body !== null && body !== undefined)
    words.push(['--data-raw', typeof body === 'string' ? body : JSON.stringify(body)]);
  return words.map((line) => line.map(shellQuote).join(' ')).join(' \\\n  ');
}
