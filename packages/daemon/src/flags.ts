import ms from 'ms';
import { DEFAULT_LIMITS, type Limits, type ServerTimeouts } from './config.js';
import { parseTrustProxy, type TrustProxy, TrustProxyError } from './http/trust-proxy.js';
import { UsageError } from './exit-error.js';

/** The daemon's flags as commander hands them over: text, parsed here into checked numbers. */
export interface ServerFlags {
  readonly maxBody: string;
  readonly headersTimeout: string;
  readonly requestTimeout: string;
  readonly keepAliveTimeout: string;
  readonly maxStreamsPerToken: string;
  readonly maxStreams: string;
  readonly streamBuffer: string;
  readonly maxLargeBatches: string;
  readonly largeBatchWait: string;
}

export function parsePort(text: string): number {
  const port = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--port takes a number from 0 to 65535 (got "${text}")`);
  return port;
}

const BYTE_UNITS = new Map([
  ['b', 1],
  ['kb', 1024],
  ['kib', 1024],
  ['mb', 1024 * 1024],
  ['mib', 1024 * 1024],
]);

export function parseBytes(flag: string, text: string): number {
  const match = /^(\d+)\s*(b|kb|kib|mb|mib)?$/i.exec(text.trim());
  const unit = BYTE_UNITS.get((match?.[2] ?? 'b').toLowerCase()) ?? Number.NaN;
  const bytes = match ? Number(match[1]) * unit : Number.NaN;
  if (!Number.isSafeInteger(bytes) || bytes < 1024)
    throw new UsageError(`${flag} takes a size of at least 1kb such as 1mb or 65536 (got "${text}")`);
  return bytes;
}

function parseDuration(flag: string, text: string): number {
  // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- the pattern admits only forms ms reads, which its template-literal type cannot express
  const millis = /^\d+\s*(ms|s|m)$/i.test(text.trim()) ? ms(text.trim() as ms.StringValue) : Number.NaN;
  if (!Number.isSafeInteger(millis) || millis < 100)
    throw new UsageError(`${flag} takes a duration of at least 100ms such as 10s, 500ms or 2m (got "${text}")`);
  return millis;
}

export function parseCount(flag: string, text: string): number {
  const count = /^\d+$/.test(text.trim()) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(count) || count < 1)
    throw new UsageError(`${flag} takes a whole number of at least 1 (got "${text}")`);
  return count;
}

/** `--db-pool`: absent leaves the default of db/pool-size.ts. */
export function parsePoolSize(text: string | undefined): number | undefined {
  return text === undefined ? undefined : parseCount('--db-pool', text);
}

export function parseTimeouts(flags: ServerFlags): ServerTimeouts {
  const timeouts = {
    headers: parseDuration('--headers-timeout', flags.headersTimeout),
    request: parseDuration('--request-timeout', flags.requestTimeout),
    keepAlive: parseDuration('--keep-alive-timeout', flags.keepAliveTimeout),
  };
  // Node refuses a header deadline past the request's: the headers are part of the request.
  if (timeouts.headers > timeouts.request)
    throw new UsageError('--headers-timeout must not be longer than --request-timeout');
  return timeouts;
}

export function parseLimits(flags: ServerFlags): Limits {
  return {
    ...DEFAULT_LIMITS,
    streamsPerToken: parseCount('--max-streams-per-token', flags.maxStreamsPerToken),
    streams: parseCount('--max-streams', flags.maxStreams),
    streamBuffer: parseBytes('--stream-buffer', flags.streamBuffer),
    largeBatches: parseCount('--max-large-batches', flags.maxLargeBatches),
    largeBatchWaitMs: parseDuration('--large-batch-wait', flags.largeBatchWait),
  };
}

/** `--trust-proxy` (or TAPLINE_TRUST_PROXY); absent is off. */
export function parseTrustProxyFlag(text: string | undefined): TrustProxy {
  if (text === undefined) return false;
  try {
    return parseTrustProxy(text);
  } catch (error) {
    const why = error instanceof TrustProxyError ? `: ${error.message}` : '';
    throw new UsageError(
      `--trust-proxy takes "off", a number of proxies from 1, or proxy addresses such as loopback or 10.0.0.0/8, comma-separated${why} (got "${text}")`,
    );
  }
}

/** `--alert-interval`: from 1 s (a test, a demo) to an hour. */
export function parseAlertInterval(text: string): number {
  const interval = parseDuration('--alert-interval', text);
  if (interval < 1_000 || interval > 3_600_000)
    throw new UsageError(`--alert-interval takes a duration from 1s to 60m such as 30s (got "${text}")`);
  return interval;
}
