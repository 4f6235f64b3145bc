import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import proxyAddr from 'proxy-addr';

/**
 * `--trust-proxy`: which peers may name the client in `X-Forwarded-For`. Off, a number of proxy
 * hops in front of the daemon, or the proxies' addresses and subnets (proxy-addr's names
 * `loopback`, `linklocal`, `uniquelocal` included). `true` (any peer) is not offered: every
 * client could then pick the address the log-in rate limit counts.
 */
export type TrustProxy = false | number | readonly string[];

/** Whether the peer at `address`, `hop` proxies away from the daemon, may forward a client address. */
export type TrustFunction = (address: string, hop: number) => boolean;

export function compileTrust(setting: TrustProxy): TrustFunction {
  if (setting === false) return () => false;
  if (typeof setting === 'number') return (_address, hop) => hop < setting;
  return proxyAddr.compile([...setting]);
}

/**
 * The client's address as the audit log and the rate limit name it: the socket's peer, or with a
 * trusted proxy in front the nearest address in `X-Forwarded-For` that no trusted proxy added
 * (what Express's `req.ip` gives, for requests that never reach Express). A value that is not
 * an address (a trusted peer forwarded junk) falls back to the peer, which is an address.
 */
export function clientAddress(req: IncomingMessage, trust: TrustFunction): string | undefined {
  return req.socket.remoteAddress === undefined
    ? undefined
    : addressOrPeer(proxyAddr(req, trust), req.socket.remoteAddress);
}

/** `forwarded` when it is an IP address, else the socket's `peer` (undefined once the socket is gone). */
export function addressOrPeer(forwarded: string | undefined, peer: string | undefined): string | undefined {
  return forwarded !== undefined && isIP(forwarded) !== 0 ? forwarded : peer;
}

export class TrustProxyError extends Error {}

/** Reads the flag's text; throws TrustProxyError with the reason when it cannot. */
export function parseTrustProxy(text: string): TrustProxy {
  const value = text.trim();
  if (value === 'off') return false;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (Number.isSafeInteger(hops) && hops >= 1) return hops;
    throw new TrustProxyError('a number of proxies must be at least 1');
  }
  const addresses = value.split(',').map((a) => a.trim());
  if (addresses.some((a) => a === '')) throw new TrustProxyError('an address is empty');
  try {
    proxyAddr.compile(addresses);
  } catch (error) {
    throw new TrustProxyError(error instanceof Error ? error.message : String(error));
  }
  return addresses;
}
