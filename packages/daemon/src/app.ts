import express from 'express';
import type { Logger } from 'pino';
import { authRoutes } from './auth/routes.js';
import { createTokenService } from './auth/tokens.js';
import { coreLogRoutes } from './core-logs/routes.js';
import type { Db } from './db/open.js';
import { type Clock, type DaemonConfig, type Deps, systemClock } from './deps.js';
import { createTrafficBus, type IngestHook, type TrafficBus } from './http-traffic/bus.js';
import { countTraffic } from './http-traffic/counts.js';
import { createIngestQueue } from './http-traffic/ingest-queue.js';
import { createRedactor } from './http-traffic/redact.js';
import { httpTrafficRoutes } from './http-traffic/routes.js';
import { errorHandler, unknownRoute } from './http/errors.js';
import { metaRoutes } from './meta/routes.js';
import { trafficSourceRoutes } from './traffic-sources/routes.js';
import { webhookRoutes } from './webhooks/routes.js';
import { createWebhookWorker, type WebhookWorker, type WorkerOptions } from './webhooks/worker.js';

export interface AppOptions {
  readonly db: Db;
  readonly config: DaemonConfig;
  readonly logger: Logger;
  readonly clock?: Clock;
  readonly bus?: TrafficBus;
  /** Run inside every ingest transaction (the webhook outbox writes its rows here). */
  readonly ingestHooks?: readonly IngestHook[];
  /** The webhook worker starts with the app unless `start` is false (tests then call `runDue`). */
  readonly webhooks?: { readonly start?: boolean } & Pick<WorkerOptions, 'random' | 'timeoutMs'>;
}

/** Builds the Express app; never listens. `main.ts` does that, tests call this in-process. */
export function createApp(options: AppOptions): { app: express.Express; deps: Deps; webhooks: WebhookWorker; stop: () => Promise<void> } {
  const clock = options.clock ?? systemClock;
  const shutdown = new AbortController();
  const deps: Deps = {
    shutdown: shutdown.signal,
    db: options.db,
    clock,
    config: options.config,
    logger: options.logger,
    bus: options.bus ?? createTrafficBus(),
    tokens: createTokenService(options.db, clock),
  };
  const { start: startWebhooks = options.config.webhookDelivery, ...webhookOptions } = options.webhooks ?? {};
  const webhooks = createWebhookWorker({ ...deps, ...webhookOptions });
  const ingest = createIngestQueue({ ...deps, redactor: createRedactor(options.config.redact), hooks: [countTraffic, ...(options.ingestHooks ?? []), webhooks.hook] });

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  const router = express.Router({ strict: false });
  metaRoutes(router, deps);
  authRoutes(router, deps);
  trafficSourceRoutes(router, deps);
  httpTrafficRoutes(router, deps, ingest);
  coreLogRoutes(router, deps);
  webhookRoutes(router, deps, webhooks);
  app.use(router);
  app.use(unknownRoute);
  app.use(errorHandler(options.logger));
  if (startWebhooks) webhooks.start();
  return {
    app,
    deps,
    webhooks,
    stop: async () => {
      shutdown.abort();
      await webhooks.stop();
    },
  };
}
