import type { TrustProxy } from './http/trust-proxy.js';
import { DEFAULT_POLICY, type RetentionPolicy } from './retention/options.js';
import { DEFAULT_STATS, type StatsConfig } from './route-stats/options.js';

// The daemon's settings as the flags give them, and their defaults. On the ground floor: the flag
// parser, serve.ts and every route read them without importing the services deps.ts ties together.
// Its imports are leaves (the options of retention and statistics, the trust-proxy parser).

export interface DaemonConfig {
  readonly version: string;
  /** Largest JSON body in bytes on ordinary endpoints (`--max-body`). */
  readonly maxBody: number;
  readonly redact: { readonly enabled: boolean; readonly extraKeys: readonly string[] };
  readonly allowPrivateWebhooks: boolean;
  /** False (`--no-webhook-delivery`): notifications are queued but another daemon sends them. */
  readonly webhookDelivery: boolean;
  readonly limits: Limits;
  /** `--retention`, `--max-db-size`, `--prune-every` (docs/storage.md). */
  readonly retention: RetentionPolicy;
  /** `--trust-proxy`: whose `X-Forwarded-For` names the client (http/trust-proxy.ts). */
  readonly trustProxy: TrustProxy;
  /** `--no-stats`, `--stats-retention` (docs/statistics.md). */
  readonly stats: StatsConfig;
  /** `--alert-interval` (docs/alerts.md). */
  readonly alerts: { readonly intervalMs: number };
  /** `--no-ui`, `--ui-host`, `--ui-replay-origin`: the web UI at `/` (docs/web.md). */
  readonly ui: UiConfig;
}

export interface UiConfig {
  readonly enabled: boolean;
  /** Host names the page answers to besides IP literals and localhost (DNS rebinding, web-ui/host.ts). */
  readonly hosts: readonly string[];
  /** Origins besides loopback the page's replay may send to (its CSP's `connect-src`, web-ui/routes.ts). */
  readonly replayOrigins: readonly string[];
}

export const DEFAULT_ALERT_INTERVAL_MS = 30_000;

/** What clients may hold at once, so memory has a ceiling (docs/api.md, "Limits"). */
export interface Limits {
  /** Open event streams per token, and in all; one more is a 429 `too_many_streams`. */
  readonly streamsPerToken: number;
  readonly streams: number;
  /** Bytes written to a stream that its client has not taken yet; past it the stream is closed. */
  readonly streamBuffer: number;
  /** Batch bodies above this many bytes (or of unknown length) are large: */
  readonly largeBatchBytes: number;
  /** at most this many are read at once (on PostgreSQL, as many more stored, §20.28); the others wait, then get a 503 `overloaded`. */
  readonly largeBatches: number;
  readonly largeBatchWaitMs: number;
}

export const DEFAULT_LIMITS: Limits = {
  streamsPerToken: 100,
  streams: 250,
  streamBuffer: 64 * 1024,
  largeBatchBytes: 1024 * 1024,
  largeBatches: 1,
  largeBatchWaitMs: 10_000,
};

export const defaultConfig = (version: string): DaemonConfig => ({
  version,
  maxBody: 1024 * 1024,
  redact: { enabled: true, extraKeys: [] },
  allowPrivateWebhooks: false,
  webhookDelivery: true,
  limits: DEFAULT_LIMITS,
  retention: DEFAULT_POLICY,
  trustProxy: false,
  stats: DEFAULT_STATS,
  alerts: { intervalMs: DEFAULT_ALERT_INTERVAL_MS },
  ui: { enabled: true, hosts: [], replayOrigins: [] },
});

/** How long a client may take, in milliseconds (`--headers-timeout` and friends in commands/serve.ts). */
export interface ServerTimeouts {
  /** From connecting to the end of the request headers; a fresh socket that sends nothing counts too. */
  readonly headers: number;
  /** From connecting to the end of the request body. Answers (event streams) are not limited. */
  readonly request: number;
  /** How long a keep-alive socket may sit idle between requests. */
  readonly keepAlive: number;
}

/** A local daemon's clients are near: anything slower than this is stuck or hostile. */
export const DEFAULT_TIMEOUTS: ServerTimeouts = { headers: 10_000, request: 60_000, keepAlive: 5_000 };
