import { contractRoutes } from '@tapline/shared/lean';
import type { RequestListener } from 'node:http';
import express from 'express';
import type { Logger } from 'pino';
import { createAlertEvaluator, type AlertEvaluator } from './alerts/evaluator.js';
import { alertRoutes } from './alerts/routes.js';
import { findRule } from './alerts/repo.js';
import { authRoutes } from './auth/routes.js';
import { createTokenService } from './auth/tokens.js';
import { coreLogRoutes } from './core-logs/routes.js';
import type { SqlDialect } from './db/dialect.js';
import type { Db, Executor } from './db/open.js';
import { type ClusterSignals, localSignals } from './db/signals.js';
import { createOutageLog } from './db/unavailable.js';
import { type Clock, systemClock } from './clock.js';
import type { DaemonConfig } from './config.js';
import type { Deps } from './deps.js';
import { createTrafficBus, type IngestHook, type TrafficBus } from './stream/bus.js';
import { largeBatchesFlowing } from './heap-limits.js';
import { createComposer } from './ingest/compose.js';
import { createIngest } from './ingest/ingest.js';
import { type BatchPreparer, type BatchWorker, createBatchPreparer } from './ingest/prepare-pool.js';
import { httpTrafficRoutes } from './http-traffic/routes.js';
import { errorHandler, methodNotAllowed, unknownRoute } from './http/errors.js';
import { createGate } from './http/gate.js';
import { createLeanDispatcher, type LeanDispatcher } from './http/lean.js';
import { createReclaimer } from './http/reclaim.js';
import { clientAddress, compileTrust } from './http/trust-proxy.js';
import { createInflight, trackRequests } from './http/inflight.js';
import { metaRoutes } from './meta/routes.js';
import { createHealthMetrics } from './metrics/health.js';
import { createTrafficMetrics } from './metrics/traffic.js';
import { otlpRoutes } from './otlp/routes.js';
import { apiContractRoutes } from './api-contract/api-contract.routes.js';
import { createPruner, type Pruner } from './retention/pruner.js';
import { type Backfill, createBackfill, statsOfAssigned } from './route-stats/backfill.js';
import type { StatInput } from './route-stats/rollup.js';
import { addStats, lateBeforeAt, lockStats } from './route-stats/writer.js';
import { createStatsPruner, type StatsPruner } from './route-stats/prune.js';
import { statisticsRoutes } from './route-stats/routes.js';
import { createReassignment, type Reassignment } from './route-stats/reassign.js';
import { storageOps } from './retention/storage.js';
import { createSourceFinder } from './traffic-sources/repo.js';
import { trafficSourceRoutes } from './traffic-sources/routes.js';
import { findWebhook } from './webhooks/repo.js';
import { webhookRoutes } from './webhooks/routes.js';
import type { WebUiSource } from './web-ui/assets.js';
import { webUiRoutes } from './web-ui/routes.js';
import { createWebhookWorker, type WebhookWorker, type WorkerOptions } from './webhooks/worker.js';

export interface AppOptions {
  readonly db: Db;
  readonly dialect: SqlDialect;
  readonly config: DaemonConfig;
  readonly logger: Logger;
  readonly clock?: Clock;
  readonly bus?: TrafficBus;
  /** Several daemons on one PostgreSQL database pass its LISTEN/NOTIFY signals (db/pg-signals.ts). */
  readonly signals?: ClusterSignals;
  /** Run inside every ingest transaction (the webhook outbox writes its rows here). */
  readonly ingestHooks?: readonly IngestHook[];
  /** Large batches are prepared in this worker thread; without it, on the event loop. */
  readonly batchWorker?: BatchWorker | null;
  /** The webhook worker starts with the app unless `start` is false (tests then call `runDue`). */
  readonly webhooks?: { readonly start?: boolean } & Pick<WorkerOptions, 'random' | 'timeoutMs'>;
  /** The pruner starts with the app unless `start` is false (tests then call `runNow`). */
  readonly pruner?: { readonly start?: boolean };
  /** The route backfill (route-stats/backfill.ts) starts with the app unless `start` is false (tests then call `runNow`). */
  readonly routeBackfill?: { readonly start?: boolean };
  /** The alert evaluator starts with the app unless `start` is false (tests then call `runDue`); `owner` names its claims. */
  readonly alerts?: { readonly start?: boolean; readonly owner?: string };
  /**
   * The job that moves stored entries after a rule changes (route-stats/reassign.ts) runs at
   * start and after each change unless `start` is false (tests then call `runNow`).
   */
  readonly routeReassignment?: { readonly start?: boolean };
  /**
   * The jobs above that start with the app begin this many ms after it is made, not at once: the
   * daemon answers its first requests first (decisions §20.35). Stopping the app before then starts none.
   */
  readonly jobsAfterMs?: number;
  /** The web UI's files (web-ui/assets.ts); none: `/` stays an unknown path. */
  readonly webUi?: WebUiSource | null;
  /** The address the daemon listens on: the web UI answers to it by name (web-ui/host.ts). */
  readonly listenHost?: string;
}

export interface App {
  /** Every route. */
  readonly app: express.Express;
  /** What the daemon listens with: the lean ingest path first, the Express app for the rest. */
  readonly handler: RequestListener;
  /** The lean ingest path alone (http/lean.ts); `fallback` gets what it does not serve. */
  readonly lean: LeanDispatcher;
  readonly deps: Deps;
  readonly webhooks: WebhookWorker;
  readonly batches: BatchPreparer;
  readonly pruner: Pruner;
  readonly routeBackfill: Backfill;
  readonly routeReassignment: Reassignment;
  readonly statsPruner: StatsPruner;
  readonly alerts: AlertEvaluator;
  stop: () => Promise<void>;
}

/** Builds the Express app; never listens. `main.ts` does that, tests call this in-process. */
export function createApp(options: AppOptions): App {
  const clock = options.clock ?? systemClock;
  const shutdown = new AbortController();
  const trust = compileTrust(options.config.trustProxy);
  const findSource = createSourceFinder(options.db, options.dialect);
  // While large batches come, the lean heap's old generation may grow to twice its live data
  // (decisions §20.41).
  const reclaimer = createReclaimer(undefined, { flowing: largeBatchesFlowing });
  const deps: Deps = {
    shutdown: shutdown.signal,
    inflight: createInflight(),
    db: options.db,
    dialect: options.dialect,
    clock,
    config: options.config,
    logger: options.logger,
    outages: createOutageLog(options.logger),
    bus: options.bus ?? createTrafficBus(),
    signals: options.signals ?? localSignals(),
    tokens: createTokenService(options.db, clock, options.dialect),
    largeBodies: createGate({
      concurrency: options.config.limits.largeBatches,
      maxWaiting: options.config.limits.largeBatches * 4,
      waitMs: options.config.limits.largeBatchWaitMs,
      onRelease: reclaimer.soon,
    }),
    // On PostgreSQL the next large batch is read and prepared while one is stored (decisions §20.28),
    // and two are stored at once, the second one's group made while the first one's statements
    // run (ingest/ingest.ts, decisions §20.42).
    storedBatches:
      options.dialect.backend === 'postgres'
        ? createGate({
            concurrency: 2 * options.config.limits.largeBatches,
            // Only bodies already read wait here, so refusing one frees no memory.
            maxWaiting: Number.POSITIVE_INFINITY,
            waitMs: options.config.limits.largeBatchWaitMs,
            onRelease: reclaimer.soon,
          })
        : undefined,
    findSource,
    finders: {
      source: findSource,
      webhook: (id) => findWebhook(options.db, id),
      alertRule: (id) => findRule(options.db, id),
    },
    storage: storageOps(options.db, options.dialect),
    clientAddress: (req) => clientAddress(req, trust),
  };
  const { start: startWebhooks = options.config.webhookDelivery, ...webhookOptions } = options.webhooks ?? {};
  const webhooks = createWebhookWorker({ ...deps, ...webhookOptions });
  const lateBefore = () => lateBeforeAt(deps.clock.now().getTime());
  const stats = options.config.stats.enabled
    ? (trx: Executor, inputs: readonly StatInput[]) => lockStats(trx, deps.dialect, inputs, lateBefore())
    : undefined;
  const ingest = createIngest({ ...deps, hooks: [...(options.ingestHooks ?? []), webhooks.hook], stats });
  // The other daemons on the database learn of committed entries this way (their streams read them).
  deps.bus.subscribe(() => deps.signals.notify('traffic'));
  const preparer = createBatchPreparer(options.batchWorker ?? null, options.config.redact, options.logger);

  const app = express();
  app.use(trackRequests(deps.inflight, shutdown.signal));
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  // Express's req.ip (the rate limit's key, the audit line's address) follows the same rule as the lean path.
  app.set('trust proxy', trust);
  if (options.webUi)
    webUiRoutes(app, options.webUi, {
      hosts: [...(options.listenHost ? [options.listenHost] : []), ...options.config.ui.hosts],
      replayOrigins: options.config.ui.replayOrigins,
    });
  const router = express.Router({ strict: false });
  metaRoutes(router, deps);
  authRoutes(router, deps);
  trafficSourceRoutes(router, deps);
  const traffic = httpTrafficRoutes(router, deps, ingest, preparer, createComposer(deps, ingest));
  otlpRoutes(router, deps, ingest);
  coreLogRoutes(router, deps);
  webhookRoutes(router, deps, webhooks);
  const trafficMetrics = createTrafficMetrics(deps.bus, deps.findSource);
  const health = createHealthMetrics({
    db: deps.db,
    bus: deps.bus,
    queuedRecords: () => ingest.queuedRecords,
    waitingBatches: () => deps.largeBodies.waiting,
    openStreams: traffic.openStreams,
    databaseBytes: () => deps.storage.sizeBytes(),
  });
  alertRoutes(router, deps, webhooks);
  const reassignment = createReassignment({ ...deps, stats: stats !== undefined });
  const routeReassignment: Reassignment =
    options.routeReassignment?.start === false ? { ...reassignment, start: () => undefined } : reassignment;
  statisticsRoutes(router, deps, routeReassignment, { traffic: trafficMetrics, health });
  apiContractRoutes(router, deps);
  methodNotAllowed(router, Object.values(contractRoutes));
  app.use(router);
  app.use(unknownRoute);
  app.use(errorHandler(deps));
  const lean = createLeanDispatcher(deps, traffic.ingest);
  const pruner = createPruner({ ...deps, ops: deps.storage, policy: options.config.retention });
  const routeBackfill = createBackfill({
    ...deps,
    ...(stats
      ? { onAssigned: statsOfAssigned(deps, (trx, inputs) => addStats(trx, deps.dialect, inputs, lateBefore())) }
      : {}),
  });
  const statsPruner = createStatsPruner({
    ...deps,
    retentionMs: options.config.stats.retentionMs,
    everyMs: options.config.retention.everyMs,
  });
  const alerts = createAlertEvaluator({
    ...deps,
    intervalMs: options.config.alerts.intervalMs,
    statsRetentionMs: options.config.stats.retentionMs,
    onQueued: () => webhooks.nudge(),
    ...(options.alerts?.owner ? { owner: options.alerts.owner } : {}),
  });
  const startJobs = (): void => {
    if (startWebhooks) webhooks.start();
    if (options.pruner?.start !== false) pruner.start();
    if (options.routeBackfill?.start !== false) routeBackfill.start();
    routeReassignment.start();
    if (options.pruner?.start !== false) statsPruner.start();
    if (options.alerts?.start !== false) alerts.start();
  };
  let jobsTimer: NodeJS.Timeout | undefined;
  if (options.jobsAfterMs === undefined) startJobs();
  else {
    jobsTimer = setTimeout(startJobs, options.jobsAfterMs);
    jobsTimer.unref();
  }
  return {
    app,
    handler: (req, res) =>
      lean(req, res, () => {
        app(req, res);
      }),
    lean,
    deps,
    webhooks,
    batches: preparer,
    pruner,
    routeBackfill,
    routeReassignment,
    statsPruner,
    alerts,
    stop: async () => {
      clearTimeout(jobsTimer);
      statsPruner.stop();
      trafficMetrics.stop();
      health.stop();
      await alerts.stop();
      shutdown.abort();
      await pruner.stop();
      await routeBackfill.stop();
      await routeReassignment.stop();
      if (!(await deps.inflight.drain(10_000))) options.logger.warn('stopping with requests still running after 10 s');
      await webhooks.stop();
      await preparer.close();
    },
  };
}
