import type { IncomingMessage } from 'node:http';
import type { Logger } from 'pino';
import type { Clock } from './clock.js';
import type { SqlDialect } from './db/dialect.js';
import type { Db } from './db/open.js';
import type { ClusterSignals } from './db/signals.js';
import type { OutageLog } from './db/unavailable.js';
import type { TrafficBus } from './http-traffic/bus.js';
import type { TokenService } from './auth/tokens.js';
import type { Gate } from './http/gate.js';
import type { Inflight } from './http/inflight.js';
import { DEFAULT_POLICY, type RetentionPolicy } from './retention/options.js';
import type { StorageOps } from './retention/storage.js';
import { DEFAULT_STATS, type StatsConfig } from './route-stats/options.js';
import type { SourceFinder } from './traffic-sources/repo.js';
import type { TrustProxy } from './http/trust-proxy.js';

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
  /** `--no-ui`, `--ui-host`: the web UI at `/` (docs/web-ui.md). */
  readonly ui: UiConfig;
}

export interface UiConfig {
  readonly enabled: boolean;
  /** Host names the page answers to besides IP literals and localhost (DNS rebinding, web-ui/host.ts). */
  readonly hosts: readonly string[];
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
  /** at most this many are read and stored at once; the others wait, then get a 503 `overloaded`. */
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
  ui: { enabled: true, hosts: [] },
});

/** Everything a route or service needs, passed in: no module keeps state of its own. */
export interface Deps {
  readonly db: Db;
  /** How this database's engine spells what SQLite and PostgreSQL spell differently. */
  readonly dialect: SqlDialect;
  readonly clock: Clock;
  readonly config: DaemonConfig;
  readonly logger: Logger;
  /** Where a database that cannot serve is reported, by requests and background tasks alike. */
  readonly outages: OutageLog;
  readonly bus: TrafficBus;
  /** Wake-ups from the other daemons on this database (none on SQLite). */
  readonly signals: ClusterSignals;
  readonly tokens: TokenService;
  /** The traffic source by id (compiled once for this database). */
  readonly findSource: SourceFinder;
  /** Aborted when the daemon stops: long-lived work (streams, workers) ends on it. */
  readonly shutdown: AbortSignal;
  /** Request handlers still running; the daemon waits for them before closing the database. */
  readonly inflight: Inflight;
  /** Large batch bodies pass it before they are read (`Limits.largeBatches`). */
  readonly largeBodies: Gate;
  /** The database's size and the dialect's maintenance (retention/storage.ts). */
  readonly storage: StorageOps;
  /** The client's address by `--trust-proxy`, as Express's `req.ip` gives it (http/trust-proxy.ts). */
  readonly clientAddress: (req: IncomingMessage) => string | undefined;
}
