import type { WebhookAttempt } from '@tapline/shared';
import type { Logger } from 'pino';
import type { SqlDialect } from '../db/dialect.js';
import type { Db } from '../db/open.js';
import type { Clock } from '../clock.js';
import type { DaemonConfig } from '../config.js';
import type { DeliveryRow } from './table.js';
import type { IngestHook, TrafficBus } from '../stream/bus.js';
import type { ClusterSignals } from '../db/signals.js';
import { logTaskFailure } from '../db/task-failure.js';
import { isDatabaseUnavailable, type OutageLog } from '../db/unavailable.js';
import { claimDue, createTestDelivery, nextDueAt, pruneFinished, recordAttempt } from './delivery-repo.js';
import { findWebhook } from './repo.js';
import { deliveryHeaders, messageOf, renderBody, targetOf } from './format.js';
import { schemas } from '../http/schemas.js';
import { enqueueNotifications } from './outbox.js';
import { judge, lastAttempt } from './retry.js';
import { nextPassInMs, retryPassInMs } from './schedule.js';
import { send } from './send.js';
import { createSends } from './sends.js';

export interface WebhookWorker {
  /** Writes outbox rows inside the ingest transaction (pass it to createApp's `ingestHooks`). */
  readonly hook: IngestHook;
  /** Delivers what is due now, then whenever something new is queued or falls due. */
  start(): void;
  /** Stops waking up and waits for the sends in flight (each bounded by the 5 s timeout). */
  stop(): Promise<void>;
  /** Delivers everything due at the clock's now, once; tests drive the worker with this. */
  runDue(): Promise<number>;
  /** Aborts sends in flight for a deleted webhook, so nothing reaches it after the delete answers. */
  cancel(webhookId: string): void;
  /** Something was queued outside ingest (an alert): this daemon and the others look at once. */
  nudge(): void;
  /** Sends a test message now, once, and records the attempt; null when the webhook is gone. */
  sendTest(webhookId: string): Promise<WebhookAttempt | null>;
}

export interface WorkerOptions {
  readonly db: Db;
  readonly dialect: SqlDialect;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Where a pass that failed because the database cannot serve is reported (rate-limited). */
  readonly outages: OutageLog;
  readonly config: Pick<DaemonConfig, 'allowPrivateWebhooks' | 'version'>;
  readonly bus: TrafficBus;
  /** Other daemons on the database: they hear of queued messages and deleted webhooks. */
  readonly signals: ClusterSignals;
  /** Jitter source; tests pass a fixed one. */
  readonly random?: () => number;
  readonly timeoutMs?: number;
}

const BATCH = 100;
const PRUNE_EVERY_MS = 60 * 60_000;

export function createWebhookWorker(options: WorkerOptions): WebhookWorker {
  const { db, clock, logger } = options;
  const random = options.random ?? Math.random;
  const sends = createSends();
  let stopped = true;
  let running: Promise<void> | null = null;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  let unsubscribe: (() => void) | undefined;
  let prunedAt = 0;
  let claimedLast = 0;
  let failedPasses = 0;

  async function deliver(row: DeliveryRow): Promise<void> {
    try {
      await sends.run(row.webhook_id, (signal) => attempt(options, random, row, signal, false));
    } catch (error) {
      // The message stays claimed: its lease ends, and a later pass (here or on another daemon) sends it.
      if (isDatabaseUnavailable(error)) options.outages.report(error, 'webhook delivery');
      else
        logger.error({ err: error, deliveryId: row.id }, 'webhook delivery crashed; it is retried when its lease ends');
    }
  }

  /** Claims and sends until nothing more is due; at most one message per webhook at a time. */
  async function runDue(): Promise<number> {
    let total = 0;
    for (;;) {
      const rows = await claimDue(options, clock.now(), BATCH);
      if (rows.length === 0) break;
      // Webhooks do not wait for each other. A delete between the claim and the send still
      // aborts it: `attempt` looks the webhook up after `deliver` tracked the send.
      await Promise.all(rows.map(deliver));
      total += rows.length;
    }
    claimedLast = total;
    const now = clock.now().getTime();
    if (now - prunedAt > PRUNE_EVERY_MS) {
      prunedAt = now;
      await pruneFinished(db, clock.now());
    }
    return total;
  }

  function wakeIn(ms: number): void {
    clearTimeout(timer);
    timer = setTimeout(wake, ms);
    timer.unref();
  }

  async function schedule(): Promise<void> {
    const at = await nextDueAt(db);
    if (stopped) return;
    wakeIn(nextPassInMs(at, clock.now().getTime(), claimedLast));
  }

  function wake(): void {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    clearTimeout(timer);
    running = (async () => {
      try {
        do {
          again = false;
          await runDue();
        } while (again && !stopped);
        await schedule();
        failedPasses = 0;
      } catch (error) {
        // Without a timer of its own the worker would wait for the next queued message, which
        // may never come: what is due now would stay unsent after the database came back.
        logTaskFailure(options, error, 'webhook delivery');
        failedPasses++;
        if (!stopped) wakeIn(retryPassInMs(failedPasses));
      }
    })().finally(() => {
      running = null;
    });
  }

  // Only when the committed group queued something, so ingest without webhooks costs nothing here;
  // and whether or not this daemon sends (`--no-webhook-delivery`): the other daemons may. Marked
  // by the group's first entry, the same object the bus publishes once the group commits: two
  // groups may be in flight at once (decisions §20.42), and one flag for the daemon was cleared by
  // the first to commit, so the second's messages waited for the next pass.
  const queuing = new WeakSet<object>();
  const unannounce = options.bus.subscribe((committed) => {
    const first = committed[0]?.entry;
    if (!first || !queuing.delete(first)) return;
    options.signals.notify('outbox');
    wake();
  });

  return {
    hook: async (trx, entries) => {
      const first = entries[0];
      if (first && (await enqueueNotifications(trx, options.dialect, entries))) queuing.add(first);
    },
    start() {
      if (!stopped) return;
      stopped = false;
      const stops = [
        options.signals.listen('outbox', wake),
        // '' after the listening connection came back: which webhooks went meanwhile is unknown,
        // but their rows are gone, so `attempt` and `recordAttempt` find nothing to send or record.
        options.signals.listen('webhook_deleted', sends.cancel),
      ];
      unsubscribe = () => stops.forEach((stop) => stop());
      wake();
    },
    async stop() {
      stopped = true;
      unannounce();
      clearTimeout(timer);
      unsubscribe?.();
      await running;
    },
    runDue,
    cancel: sends.cancel,
    nudge() {
      options.signals.notify('outbox');
      wake();
    },
    async sendTest(webhookId) {
      const now = clock.now();
      const row = await createTestDelivery(db, webhookId, now, now.toISOString());
      return sends.run(webhookId, (signal) => attempt(options, random, row, signal, true));
    },
  };
}

/** One attempt of a claimed delivery (`final`: a test message, never retried); null when the webhook is gone. */
async function attempt(
  options: WorkerOptions,
  random: () => number,
  row: DeliveryRow,
  signal: AbortSignal,
  final: boolean,
): Promise<WebhookAttempt | null> {
  const { db, clock, logger, config } = options;
  const webhook = await findWebhook(db, row.webhook_id);
  if (!webhook || signal.aborted) return null;
  const body = renderBody(targetOf(webhook), await messageOf(row, await schemas()));
  const headers = deliveryHeaders(row, webhook, body, config.version);
  const startedAt = clock.now();
  const started = performance.now();
  const result = await send({
    url: webhook.value,
    body,
    headers,
    allowPrivate: config.allowPrivateWebhooks,
    signal,
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
  });
  if (signal.aborted) return null;
  const judged = judge(result, row.attempts + 1, clock.now(), random);
  const verdict = final ? lastAttempt(judged) : judged;
  const recorded = await recordAttempt(db, row, verdict, {
    startedAt,
    durationMs: performance.now() - started,
    now: clock.now(),
  });
  if (recorded?.outcome === 'failed')
    logger.warn(
      { webhookId: row.webhook_id, deliveryId: row.id, error: recorded.error },
      'webhook delivery failed for good',
    );
  else if (recorded?.outcome === 'retrying')
    logger.debug(
      { webhookId: row.webhook_id, deliveryId: row.id, error: recorded.error, next: recorded.nextAttemptAt },
      'webhook delivery will be retried',
    );
  return recorded;
}
