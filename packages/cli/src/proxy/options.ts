import type { AddressInfo } from 'node:net';

/** `--listen`: `host:port`, `:port`, `port` or `[::1]:port`. */
export function parseListen(text: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]*))?:?(\d+)$/.exec(text.trim());
  const port = Number(match?.[3]);
  if (!match || !Number.isInteger(port) || port > 65535)
    throw new Error(`--listen must be host:port, such as 127.0.0.1:8080 (got "${text}")`);
  return { host: match[1] ?? (match[2] || '127.0.0.1'), port };
}

const UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
};

/** `64kb`, `1mb`, `65536` in bytes (binary units); null for anything else. */
export function parseSize(text: string): number | null {
  const match = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(text.trim());
  const unit = UNITS[match?.[2]?.toLowerCase() ?? 'x'];
  if (!match || unit === undefined) return null;
  const bytes = Math.floor(Number(match[1]) * unit);
  return bytes >= 1 ? bytes : null;
}

/** The URL to point a browser at; a wildcard address is reached through localhost. */
export function proxyUrl(address: AddressInfo): string {
  const wildcard = address.address === '0.0.0.0' || address.address === '::';
  const host = wildcard ? 'localhost' : address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}
