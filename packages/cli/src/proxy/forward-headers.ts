import type { IncomingMessage } from 'node:http';
import { endToEnd } from './headers.js';
import type { Target } from './target.js';

const FORWARDING = new Set(['host', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto']);
const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value) || undefined;
const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|::1|\[::1\])$/i;

/**
 * The header list sent on to the target: the client's end-to-end headers in their own case and
 * order, plus the X-Forwarded-* trio. Host is kept as the client sent it when the target is on this
 * machine, so an app that builds absolute links or redirects from Host keeps the browser on the
 * proxy; a remote target gets its own host name, since it is most likely virtual-hosted.
 */
export function requestHeadersFor(req: IncomingMessage, target: Target): string[] {
  const headers = endToEnd(req.rawHeaders, FORWARDING);
  const clientHost = req.headers.host ?? '';
  const host = LOOPBACK.test(target.hostname) && clientHost ? clientHost : target.host;
  const peer = req.socket.remoteAddress ?? '';
  const earlier = req.headers['x-forwarded-for'];
  headers.unshift('Host', host);
  // A chain of proxies appends to X-Forwarded-For and keeps the first one's Host and Proto.
  headers.push('X-Forwarded-For', earlier ? `${String(earlier)}, ${peer}` : peer);
  headers.push('X-Forwarded-Host', first(req.headers['x-forwarded-host']) ?? clientHost);
  headers.push('X-Forwarded-Proto', first(req.headers['x-forwarded-proto']) ?? 'http');
  return headers;
}
