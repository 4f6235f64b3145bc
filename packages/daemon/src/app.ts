import { contract } from '@tapline/shared';
import express from 'express';
import type { Logger } from 'pino';
import { authRoutes } from './auth/routes.js';
import { createTokenService } from './auth/tokens.js';
import { coreLogRoutes } from './core-logs/routes.js';
import type { SqlDialect } from './db/dialect.js';
import type { Db } from './db/open.js';
import { type Clock, systemClock } from './clock.js';
import type { DaemonConfig, Deps } from './deps.js';
import { createTrafficBus, type IngestHook, type TrafficBus } from './http-traffic/bus.js';
import { createIngest } from './http-traffic/ingest.js';
import { type BatchPreparer, type BatchWorker, createBatchPreparer } from './http-traffic/prepare-pool.js';
import { httpTrafficRoutes } from './http-traffic/routes.js';
import { errorHandler, methodNotAllowed, unknownRoute } from './http/errors.js';
import { createGate } from './http/gate.js';
import { createInflight, trackRequests } from './http/inflight.js';
import { metaRoutes } from './meta/routes.js';
import { createSourceFinder } from './traffic-sources/repo.js';
import { trafficSourceRoutes } from './traffic-sources/routes.js';
import { webhookRoutes } from './webhooks/routes.js';
import { createWebhookWorker, type WebhookWorker, type WorkerOptions } from './webhooks/worker.js';

export interface AppOptions {
  readonly db: Db;
  readonly dialect: SqlDialect;
  readonly config: DaemonConfig;
  readonly logger: Logger;
  readonly clock?: Clock;
  readonly bus?: TrafficBus;
  /** Run inside every ingest transaction (the webhook outbox writes its rows here). */
  readonly ingestHooks?: readonly IngestHook[];
  /** Large batches are prepared in this worker thread; without it, on the event loop. */
  readonly batchWorker?: BatchWorker | null;
  /** The webhook worker starts with the app unless `start` is false (tests then call `runDue`). */
  readonly webhooks?: { readonly start?: boolean } & Pick<WorkerOptions, 'random' | 'timeoutMs'>;
}

export interface App {
  readonly app: express.Express;
  readonly deps: Deps;
  readonly webhooks: WebhookWorker;
  readonly batches: BatchPreparer;
  stop: () => Promise<void>;
}

/** Builds the Express app; never listens. `main.ts` does that, tests call this in-process. */
export function createApp(options: AppOptions): App {
  const clock = options.clock ?? systemClock;
  const shutdown = new AbortController();
  const deps: Deps = {
    shutdown: shutdown.signal,
    inflight: createInflight(),
    db: options.db,
    dialect: options.dialect,
    clock,
    config: options.config,
    logger: options.logger,
    bus: options.bus ?? createTrafficBus(),
    tokens: createTokenService(options.db, clock),
    largeBodies: createGate({
      concurrency: options.config.limits.largeBatches,
      maxWaiting: options.config.limits.largeBatches * 4,
      waitMs: options.config.limits.largeBatchWaitMs,
    }),
    findSource: createSourceFinder(options.db),
  };
  const { start: startWebhooks = options.config.webhookDelivery, ...webhookOptions } = options.webhooks ?? {};
  const webhooks = createWebhookWorker({ ...deps, ...webhookOptions });
  const ingest = createIngest({ ...deps, hooks: [...(options.ingestHooks ?? []), webhooks.hook] });
  const preparer = createBatchPreparer(options.batchWorker ?? null, options.config.redact, options.logger);

  const app = express();
  app.use(trackRequests(deps.inflight, shutdown.signal));
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  const router = express.Router({ strict: false });
  metaRoutes(router, deps);
  authRoutes(router, deps);
  trafficSourceRoutes(router, deps);
  httpTrafficRoutes(router, deps, ingest, preparer);
  coreLogRoutes(router, deps);
  webhookRoutes(router, deps, webhooks);
  methodNotAllowed(router, Object.values(contract));
  app.use(router);
  app.use(unknownRoute);
  app.use(errorHandler(options.logger));
  if (startWebhooks) webhooks.start();
  return {
    app,
    deps,
    webhooks,
    batches: preparer,
    stop: async () => {
      shutdown.abort();
      if (!(await deps.inflight.drain(10_000))) options.logger.warn('stopping with requests still running after 10 s');
      await webhooks.stop();
      await preparer.close();
    },
  };
}
