import { createHmac } from 'node:crypto';
import { HttpTraffic, type WebhookAttempt } from '@tapline/shared';
import { z } from 'zod';
import type { Logger } from 'pino';
import type { Db } from '../db/open.js';
import type { DeliveryRow, WebhookRow } from './table.js';
import type { Clock } from '../clock.js';
import type { DaemonConfig } from '../deps.js';
import type { IngestHook, TrafficBus } from '../http-traffic/bus.js';
import { claim, createTestDelivery, dueDeliveries, findWebhook, nextDueAt, pruneFinished, recordAttempt } from './repo.js';
import { type Message, renderBody, SummaryPayload, type Target } from './format.js';
import { enqueueNotifications } from './outbox.js';
import { judge } from './retry.js';
import { send } from './send.js';

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
  /** Sends a test message now, once, and records the attempt; null when the webhook is gone. */
  sendTest(webhookId: string): Promise<WebhookAttempt | null>;
}

export interface WorkerOptions {
  readonly db: Db;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly config: Pick<DaemonConfig, 'allowPrivateWebhooks' | 'version'>;
  readonly bus: TrafficBus;
  /** Jitter source; tests pass a fixed one. */
  readonly random?: () => number;
  readonly timeoutMs?: number;
}

const BATCH = 100;
/** Even with nothing due, look again this often: another daemon on the same database may queue. */
const MAX_SLEEP_MS = 60_000;
const PRUNE_EVERY_MS = 60 * 60_000;

export const signature = (secret: string, body: string) => `sha256=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex')}`;

const TestPayload = z.object({ sentAt: z.string() });

function messageOf(row: DeliveryRow): Message {
  const payload: unknown = JSON.parse(row.payload);
  if (row.kind === 'traffic') return { kind: 'traffic', entry: HttpTraffic.parse(payload) };
  if (row.kind === 'summary') return { kind: 'summary', summary: SummaryPayload.parse(payload) };
  return { kind: 'test', sentAt: TestPayload.parse(payload).sentAt };
}

const targetOf = (w: WebhookRow): Target => ({ id: w.id, type: w.type, level: w.level, trafficSourceId: w.traffic_source_id });

export function createWebhookWorker(options: WorkerOptions): WebhookWorker {
  const { db, clock, logger, config } = options;
  const random = options.random ?? Math.random;
  const inflight = new Map<string, Set<AbortController>>();
  let queued = false;
  let stopped = true;
  let running: Promise<void> | null = null;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  let unsubscribe: (() => void) | undefined;
  let prunedAt = 0;

  function track(webhookId: string): AbortController {
    const controller = new AbortController();
    const set = inflight.get(webhookId) ?? new Set();
    set.add(controller);
    inflight.set(webhookId, set);
    return controller;
  }
  function untrack(webhookId: string, controller: AbortController) {
    const set = inflight.get(webhookId);
    set?.delete(controller);
    if (set?.size === 0) inflight.delete(webhookId);
  }

  /** One attempt of a claimed delivery. */
  async function attempt(row: DeliveryRow, signal: AbortSignal, final: boolean): Promise<WebhookAttempt | null> {
    const webhook = await findWebhook(db, row.webhook_id);
    if (!webhook || signal.aborted) return null;
    const body = renderBody(targetOf(webhook), messageOf(row));
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': `Tapline/${config.version} (+webhooks)`,
      'x-tapline-delivery': row.id,
      'x-tapline-attempt': String(row.attempts + 1),
    };
    if (webhook.type === 'http' && webhook.secret) headers['x-tapline-signature'] = signature(webhook.secret, body);
    const startedAt = clock.now();
    const started = performance.now();
    const result = await send({ url: webhook.value, body, headers, allowPrivate: config.allowPrivateWebhooks, signal, ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}) });
    if (signal.aborted) return null;
    let verdict = judge(result, row.attempts + 1, clock.now(), random);
    if (final && verdict.outcome === 'retrying') verdict = { outcome: 'failed', statusCode: verdict.statusCode, error: verdict.error };
    const recorded = await recordAttempt(db, row, verdict, { startedAt, durationMs: performance.now() - started, now: clock.now() });
    if (recorded?.outcome === 'failed') logger.warn({ webhookId: row.webhook_id, deliveryId: row.id, error: recorded.error }, 'webhook delivery failed for good');
    else if (recorded?.outcome === 'retrying') logger.debug({ webhookId: row.webhook_id, deliveryId: row.id, error: recorded.error, next: recorded.nextAttemptAt }, 'webhook delivery will be retried');
    return recorded;
  }

  async function deliver(row: DeliveryRow): Promise<void> {
    // Tracked before the claim, so a delete that lands between claim and send still aborts it.
    const controller = track(row.webhook_id);
    try {
      if (!(await claim(db, row, clock.now()))) return;
      await attempt(row, controller.signal, false);
    } catch (error) {
      logger.error({ err: error, deliveryId: row.id }, 'webhook delivery crashed; it is retried when its lease ends');
    } finally {
      untrack(row.webhook_id, controller);
    }
  }

  async function runDue(): Promise<number> {
    let total = 0;
    for (;;) {
      const rows = await dueDeliveries(db, clock.now().toISOString(), BATCH);
      const byWebhook = new Map<string, DeliveryRow[]>();
      for (const row of rows) byWebhook.set(row.webhook_id, [...(byWebhook.get(row.webhook_id) ?? []), row]);
      // One webhook's messages go in order; different webhooks do not wait for each other.
      await Promise.all([...byWebhook.values()].map(async (list) => {
        for (const row of list) await deliver(row);
      }));
      total += rows.length;
      if (rows.length < BATCH) break;
    }
    const now = clock.now().getTime();
    if (now - prunedAt > PRUNE_EVERY_MS) {
      prunedAt = now;
      await pruneFinished(db, clock.now());
    }
    return total;
  }

  async function schedule(): Promise<void> {
    const at = await nextDueAt(db);
    if (stopped) return;
    const delay = at === null ? MAX_SLEEP_MS : Math.min(MAX_SLEEP_MS, Math.max(0, Date.parse(at) - clock.now().getTime()));
    clearTimeout(timer);
    timer = setTimeout(wake, delay);
    timer.unref();
  }

  function wake(): void {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    clearTimeout(timer);
    running = (async () => {
      do {
        again = false;
        try {
          await runDue();
        } catch (error) {
          logger.error({ err: error }, 'webhook worker pass failed');
        }
      } while (again && !stopped);
      try {
        await schedule();
      } catch (error) {
        logger.error({ err: error }, 'webhook worker could not schedule its next pass');
      }
    })().finally(() => {
      running = null;
    });
  }

  return {
    hook: async (trx, entries) => {
      if (await enqueueNotifications(trx, entries)) queued = true;
    },
    start() {
      if (!stopped) return;
      stopped = false;
      // Wakes only when the committed batch queued something, so ingest without webhooks costs nothing here.
      unsubscribe = options.bus.subscribe(() => {
        if (!queued) return;
        queued = false;
        wake();
      });
      wake();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      unsubscribe?.();
      await running;
    },
    runDue,
    cancel(webhookId) {
      for (const controller of inflight.get(webhookId) ?? []) controller.abort();
    },
    async sendTest(webhookId) {
      const now = clock.now();
      const row = await createTestDelivery(db, webhookId, now, now.toISOString());
      const controller = track(webhookId);
      try {
        return await attempt(row, controller.signal, true);
      } finally {
        untrack(webhookId, controller);
      }
    },
  };
}
