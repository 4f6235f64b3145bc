import type { HeaderMap } from '@tapline/shared';
import type { Random } from './random.js';

/**
 * Header sets as they appear on the wire of a JSON API: a browser's fetch, curl, and a server-side
 * SDK on the way in; an app behind a CDN on the way out, with cookies, caching, CORS and tracing.
 * Values are shaped like real ones (lengths matter: headers are half of a stored record).
 */

const BROWSERS = [
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
];
const SDKS = [
  'stripe-node/17.4.0 node/20.18.1',
  'axios/1.7.9',
  'python-requests/2.32.3',
  'okhttp/4.12.0',
  'Go-http-client/2.0',
];
const LANGUAGES = ['en-US,en;q=0.9', 'de-DE,de;q=0.9,en-US;q=0.8,en;q=0.7', 'fr-FR,fr;q=0.9,en;q=0.6'];

const traceparent = (r: Random) => `00-${r.hex(32)}-${r.hex(16)}-01`;
const jwt = (r: Random) => `eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.${r.text(r.int(90, 140))}.${r.text(43)}`;

export type Client = 'browser' | 'curl' | 'sdk';

export function requestHeaders(r: Random, client: Client, host: string, hasBody: boolean): HeaderMap {
  const body: HeaderMap = hasBody
    ? { 'content-type': 'application/json', 'content-length': String(r.int(60, 400)) }
    : {};
  if (client === 'curl') {
    return {
      host,
      'user-agent': `curl/${r.pick(['7.88.1', '8.5.0', '8.11.1'])}`,
      accept: '*/*',
      authorization: `Bearer ${r.text(40)}`,
      ...body,
    };
  }
  if (client === 'sdk') {
    return {
      host,
      'user-agent': r.pick(SDKS),
      accept: 'application/json',
      'accept-encoding': 'gzip, deflate',
      authorization: `Bearer ${jwt(r)}`,
      'idempotency-key': uuidFrom(r),
      traceparent: traceparent(r),
      ...body,
    };
  }
  return {
    host,
    connection: 'keep-alive',
    'sec-ch-ua': '"Chromium";v="131", "Not_A Brand";v="24"',
    'sec-ch-ua-mobile': '?0',
    'sec-ch-ua-platform': r.pick(['"macOS"', '"Windows"', '"Linux"']),
    'user-agent': r.pick(BROWSERS),
    accept: 'application/json, text/plain, */*',
    origin: `https://app.${host.split('.').slice(-2).join('.')}`,
    'sec-fetch-site': 'same-site',
    'sec-fetch-mode': 'cors',
    referer: `https://app.${host.split('.').slice(-2).join('.')}/dashboard`,
    'accept-encoding': 'gzip, deflate, br, zstd',
    'accept-language': r.pick(LANGUAGES),
    cookie: `session=${r.text(32)}; _ga=GA1.1.${r.int(1e8, 1e9)}.${r.int(1.7e9, 1.8e9)}; theme=dark`,
    ...body,
  };
}

export function responseHeaders(r: Random, client: Client, status: number): HeaderMap {
  const headers: HeaderMap = {
    'content-type': 'application/json; charset=utf-8',
    date: new Date(Date.UTC(2026, 10, r.int(1, 28), r.int(0, 23), r.int(0, 59), r.int(0, 59))).toUTCString(),
    server: r.pick(['nginx', 'cloudflare', 'envoy']),
    'cache-control':
      status >= 400 ? 'no-store' : r.pick(['private, no-cache', 'public, max-age=60', 'no-store, max-age=0']),
    etag: `W/"${r.hex(8)}-${r.text(27)}"`,
    'x-request-id': uuidFrom(r),
    'strict-transport-security': 'max-age=63072000; includeSubDomains; preload',
    'x-content-type-options': 'nosniff',
  };
  if (client === 'browser') {
    headers['access-control-allow-origin'] = 'https://app.example.com';
    headers['access-control-allow-credentials'] = 'true';
    headers.vary = 'Origin, Accept-Encoding';
    if (r.chance(0.5))
      headers['set-cookie'] = [
        `session=${r.text(32)}; Path=/; HttpOnly; Secure; SameSite=Lax`,
        `csrf=${r.text(24)}; Path=/; Secure`,
      ];
  } else {
    headers['x-ratelimit-limit'] = '1000';
    headers['x-ratelimit-remaining'] = String(r.int(0, 999));
    headers.traceresponse = traceparent(r);
  }
  return headers;
}

/** A UUIDv4-shaped id from the seeded source (crypto.randomUUID would break determinism). */
export function uuidFrom(r: Random): string {
  return `${r.hex(8)}-${r.hex(4)}-4${r.hex(3)}-${r.pick(['8', '9', 'a', 'b'])}${r.hex(3)}-${r.hex(12)}`;
}
