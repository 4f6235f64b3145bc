import type { Logger } from 'pino';
import type { Clock } from './clock.js';
import type { Db } from './db/open.js';
import type { TrafficBus } from './http-traffic/bus.js';
import type { TokenService } from './auth/tokens.js';
import type { Inflight } from './http/inflight.js';
import type { SourceFinder } from './traffic-sources/repo.js';

export interface DaemonConfig {
  readonly version: string;
  /** Largest JSON body in bytes on ordinary endpoints (`--max-body`). */
  readonly maxBody: number;
  readonly redact: { readonly enabled: boolean; readonly extraKeys: readonly string[] };
  readonly allowPrivateWebhooks: boolean;
  /** False (`--no-webhook-delivery`): notifications are queued but another daemon sends them. */
  readonly webhookDelivery: boolean;
}

export const defaultConfig = (version: string): DaemonConfig => ({
  version,
  maxBody: 1024 * 1024,
  redact: { enabled: true, extraKeys: [] },
  allowPrivateWebhooks: false,
  webhookDelivery: true,
});

/** Everything a route or service needs, passed in: no module keeps state of its own. */
export interface Deps {
  readonly db: Db;
  readonly clock: Clock;
  readonly config: DaemonConfig;
  readonly logger: Logger;
  readonly bus: TrafficBus;
  readonly tokens: TokenService;
  /** The traffic source by id (compiled once for this database). */
  readonly findSource: SourceFinder;
  /** Aborted when the daemon stops: long-lived work (streams, workers) ends on it. */
  readonly shutdown: AbortSignal;
  /** Request handlers still running; the daemon waits for them before closing the database. */
  readonly inflight: Inflight;
}
