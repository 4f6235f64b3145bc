import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import { isIP, type LookupFunction } from 'node:net';
import { classifyAddress } from './targets.js';
import type * as Transport from './transport.js';

export const SEND_TIMEOUT_MS = 5_000;
/** Enough of an answer to read Discord's `retry_after` or an error message; the rest is dropped. */
const MAX_ANSWER_BYTES = 16 * 1024;

export interface SendRequest {
  readonly url: string;
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly allowPrivate: boolean;
  /** Aborted when the webhook is deleted or the daemon stops: nothing is sent after that. */
  readonly signal: AbortSignal;
  readonly timeoutMs?: number;
}

export type SendResult =
  | { readonly ok: true; readonly status: number; readonly headers: http.IncomingHttpHeaders; readonly body: string }
  | { readonly ok: false; readonly error: string; readonly retryable: boolean };

/** Resolved addresses are checked again at delivery: a name may point anywhere by now. */
export class AddressNotAllowed extends Error {}

function refusal(address: string, allowPrivate: boolean): string | null {
  const cls = classifyAddress(address);
  if (cls === 'blocked') return `${address} is a link-local or cloud-metadata address, which is never allowed`;
  if (cls === 'private' && !allowPrivate)
    return `${address} is a loopback or private address (start taplined with --allow-private-webhooks to allow it)`;
  return null;
}

/** A `lookup` for node:http that refuses a name resolving to any address a webhook may not reach. */
function checkedLookup(allowPrivate: boolean, dnsLookup: typeof Transport.lookup): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const problem = addresses.map((a) => refusal(a.address, allowPrivate)).find((p) => p !== null);
      if (problem) return callback(new AddressNotAllowed(`${hostname} resolves to ${problem}`), '', 0);
      const first = addresses[0];
      if (!first) return callback(new Error(`${hostname} has no address`), '', 0);
      // node:net asks for every address when it races IPv4 and IPv6; answer in the form asked.
      if (options.all) callback(null, addresses);
      else callback(null, first.address, first.family);
    });
  };
}

/**
 * POSTs `body` once: no redirect is followed (a 3xx is returned as it is), the whole exchange
 * is bounded by a 5 s timeout, and the target's addresses are checked before connecting.
 */
export async function send(request: SendRequest): Promise<SendResult> {
  // Loaded by the first delivery (transport.ts); later ones find it in the module cache.
  const { https, lookup } = await import('./transport.js');
  return new Promise((resolve) => {
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return resolve({ ok: false, error: 'the webhook URL is not a valid URL', retryable: false });
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const literal = isIP(host) ? refusal(host, request.allowPrivate) : null;
    if (literal) return resolve({ ok: false, error: literal, retryable: false });
    if (request.signal.aborted) return resolve({ ok: false, error: 'cancelled', retryable: false });

    const timeout = AbortSignal.timeout(request.timeoutMs ?? SEND_TIMEOUT_MS);
    const signal = AbortSignal.any([request.signal, timeout]);
    const client = url.protocol === 'https:' ? https : http;
    const req = client.request(url, {
      method: 'POST',
      headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
      lookup: checkedLookup(request.allowPrivate, lookup),
      signal,
      agent: false,
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        if (size < MAX_ANSWER_BYTES) chunks.push(chunk);
        size += chunk.length;
      });
      res.on('end', () =>
        resolve({
          ok: true,
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString('utf8').slice(0, MAX_ANSWER_BYTES),
        }),
      );
      // An answer cut short (timeout, reset) still has its status, which is what matters.
      const cut = () =>
        resolve({
          ok: true,
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
      res.on('error', cut);
      res.on('close', cut);
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error instanceof AddressNotAllowed || error.cause instanceof AddressNotAllowed) {
        return resolve({
          ok: false,
          error: error.cause instanceof Error ? error.cause.message : error.message,
          retryable: false,
        });
      }
      if (request.signal.aborted) return resolve({ ok: false, error: 'cancelled', retryable: false });
      if (timeout.aborted)
        return resolve({
          ok: false,
          error: `no answer within ${(request.timeoutMs ?? SEND_TIMEOUT_MS) / 1000} s`,
          retryable: true,
        });
      resolve({ ok: false, error: error.code ? `${error.code}: ${error.message}` : error.message, retryable: true });
    });
    req.end(request.body);
  });
}
