import type { IncomingHttpHeaders } from 'node:http';

/**
 * Headers that describe one connection rather than the message (RFC 9110 section 7.6.1). A proxy
 * must not forward them: each side has its own connection, and node:http frames each side itself
 * (it re-chunks a body that arrived chunked and keeps a Content-Length that arrived with one).
 */
const HOP_BY_HOP: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'transfer-encoding',
  'upgrade',
]);

const NO_NAMES: ReadonlySet<string> = new Set();

/**
 * Filters a raw header list (`[name, value, name, value, ...]`, as node:http gives and takes it)
 * down to the end-to-end headers, keeping the original case, order and repeats so the other side
 * sees the message as it was sent.
 */
export function endToEnd(raw: readonly string[], extraDrop: ReadonlySet<string> = NO_NAMES): string[] {
  // Runs twice per proxied request: no set is built unless Connection names headers of its own.
  let named: Set<string> | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]?.toLowerCase() !== 'connection') continue;
    for (const token of (raw[i + 1] ?? '').split(',')) (named ??= new Set()).add(token.trim().toLowerCase());
  }
  const kept: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] ?? '';
    const lower = name.toLowerCase();
    if (!HOP_BY_HOP.has(lower) && !extraDrop.has(lower) && !named?.has(lower)) kept.push(name, raw[i + 1] ?? '');
  }
  return kept;
}

/** The header lines of a raw list, each ending in CRLF, for writing a response head on a bare socket. */
export const headerLines = (raw: readonly string[]): string => {
  let text = '';
  for (let i = 0; i + 1 < raw.length; i += 2) text += `${raw[i]}: ${raw[i + 1]}\r\n`;
  return text;
};

export type HeaderRecord = Record<string, string | string[]>;

/** Lower-case names; a header sent once is a string, one sent several times a list (as the compose body takes them). */
export function toHeaderRecord(raw: readonly string[]): HeaderRecord {
  const out: HeaderRecord = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = (raw[i] ?? '').toLowerCase();
    const value = raw[i + 1] ?? '';
    const seen = out[name];
    out[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return out;
}

/** One header's value, first occurrence, from a parsed header object. */
export const headerValue = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};
