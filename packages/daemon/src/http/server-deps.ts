import type { IncomingMessage } from 'node:http';
import type { Logger } from 'pino';
import type { Finders } from '../auth/policy.js';
import type { TokenService } from '../auth/tokens.js';
import type { DaemonConfig } from '../config.js';
import type { OutageLog } from '../db/unavailable.js';
import type { Gate } from './gate.js';
import type { Inflight } from './inflight.js';

/**
 * What serving a request needs of the daemon, whatever the route: the part of deps.ts's Deps that
 * http/ may see. Deps holds every capability's services; http/ importing it sat above them all.
 */
export interface ServerDeps {
  readonly config: DaemonConfig;
  readonly logger: Logger;
  /** Where a database that cannot serve is reported, by requests and background tasks alike. */
  readonly outages: OutageLog;
  readonly tokens: TokenService;
  /** What an endpoint's `access` names, by id (auth/policy.ts): mount loads it before the handler. */
  readonly finders: Finders;
  /** Aborted when the daemon stops: long-lived work (streams, workers) ends on it. */
  readonly shutdown: AbortSignal;
  /** Request handlers still running; the daemon waits for them before closing the database. */
  readonly inflight: Inflight;
  /** Large batch bodies pass it before they are read (`Limits.largeBatches`). */
  readonly largeBodies: Gate;
  /**
   * On PostgreSQL, a prepared large batch takes a place here before it is stored and gives its
   * place at `largeBodies` to the next body (read-body.ts, `handOver`); none on SQLite.
   */
  readonly storedBatches?: Gate | undefined;
  /** The client's address by `--trust-proxy`, as Express's `req.ip` gives it (http/trust-proxy.ts). */
  readonly clientAddress: (req: IncomingMessage) => string | undefined;
}
