import type { BodyCollector } from '@tapline/shared';

/** One finished request/response pair as it passed through the proxy, before it becomes a record. */
export interface Exchange {
  readonly method: string;
  /** The request target as the client sent it: path and query. */
  readonly url: string;
  /** Raw header lists (`[name, value, ...]`) as the client and the app sent them. */
  readonly requestHeaders: readonly string[];
  readonly requestBody: BodyCollector;
  readonly status: number;
  readonly responseHeaders: readonly string[];
  readonly responseBody: BodyCollector;
  /** From the request's arrival to the response's last byte (or the handshake, for an upgrade), in ms. */
  readonly elapsedMs: number;
  /** When the request arrived, in ms since the epoch; recorded as `startedAt` (the entry's time). */
  readonly startedAt: number;
  /** Set when the proxy answered 502 itself because the target could not be reached. */
  readonly targetError?: string;
  /** A WebSocket (or other) upgrade: the record is the handshake; the tunnel that follows is not recorded. */
  readonly upgraded?: boolean;
}
