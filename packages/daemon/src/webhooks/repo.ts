import { randomBytes } from 'node:crypto';
import type { CreatedWebhook, PageQuery, Webhook, WebhookAttempt } from '@tapline/shared';
import { sql } from 'kysely';
import { type Clock, isoNow, newId } from '../clock.js';
import type { Db, Executor } from '../db/open.js';
import { newestFirst } from '../http/pagination.js';
import type { Verdict } from './retry.js';
import type { AttemptRow, DeliveryKind, DeliveryRow, WebhookRow, WindowRow } from './table.js';

/**
 * Every SQL statement of webhooks: the webhooks themselves, the outbox (deliveries and their
 * attempts) and storm control's windows. Rows become wire objects here only.
 */

/** The wire shape never carries `secret`; only the 201 of an `http` webhook adds it, once. */
const toWebhook = (row: WebhookRow): Webhook => ({
  id: row.id,
  type: row.type,
  level: row.level,
  value: row.value,
  trafficSourceId: row.traffic_source_id,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export function listWebhooks(db: Db, sourceId: string, page: PageQuery) {
  const base = db.selectFrom('webhooks').where('traffic_source_id', '=', sourceId);
  return newestFirst(page, base, (q) => q.selectAll(), toWebhook);
}

export async function findWebhook(db: Db, id: string): Promise<WebhookRow | undefined> {
  return db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function webhookExists(db: Db, sourceId: string, input: Pick<Webhook, 'type' | 'level' | 'value'>): Promise<boolean> {
  const row = await db
    .selectFrom('webhooks')
    .select('id')
    .where('traffic_source_id', '=', sourceId)
    .where('type', '=', input.type)
    .where('level', '=', input.level)
    .where('value', '=', input.value)
    .executeTakeFirst();
  return row !== undefined;
}

export async function createWebhook(db: Db, clock: Clock, sourceId: string, input: Pick<Webhook, 'type' | 'level' | 'value'>): Promise<CreatedWebhook> {
  const now = isoNow(clock);
  const row: WebhookRow = {
    id: newId(),
    traffic_source_id: sourceId,
    type: input.type,
    level: input.level,
    value: input.value,
    secret: input.type === 'http' ? randomBytes(32).toString('hex') : null,
    created_at: now,
    updated_at: now,
  };
  await db.insertInto('webhooks').values(row).execute();
  return { ...toWebhook(row), ...(row.secret ? { secret: row.secret } : {}) };
}

/** Cascades to anything queued for the webhook, so nothing more is sent once this returns. */
export async function deleteWebhook(db: Db, id: string): Promise<void> {
  await db.deleteFrom('webhooks').where('id', '=', id).execute();
}

/** How long a claimed delivery stays with its sender; after that (a crash mid-send) it is due again. */
export const LEASE_MS = 30_000;

const toAttempt = (row: AttemptRow): WebhookAttempt => ({
  id: row.id,
  deliveryId: row.delivery_id,
  kind: row.kind,
  httpTrafficId: row.http_traffic_id,
  attempt: row.attempt,
  outcome: row.outcome,
  statusCode: row.status_code,
  error: row.error,
  durationMs: row.duration_ms,
  nextAttemptAt: row.next_attempt_at,
  createdAt: row.created_at,
});

export function listAttempts(db: Db, webhookId: string, page: PageQuery) {
  const base = db.selectFrom('webhook_attempts').where('webhook_id', '=', webhookId);
  return newestFirst(page, base, (q) => q.selectAll(), toAttempt);
}

/** Deliveries due at `now`: pending ones, and claimed ones whose sender's lease ran out. */
export function dueDeliveries(db: Db, now: string, limit: number): Promise<DeliveryRow[]> {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('status', 'in', ['pending', 'sending'])
    .where('next_attempt_at', '<=', now)
    .orderBy('next_attempt_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** When the next delivery falls due, so the worker can sleep until then. */
export async function nextDueAt(db: Db): Promise<string | null> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.min('next_attempt_at').as('at'))
    .where('status', 'in', ['pending', 'sending'])
    .executeTakeFirst();
  return row?.at ?? null;
}

/**
 * Takes a due delivery for this sender: succeeds for exactly one of several workers (or daemons
 * on one database), and fails when the row is gone because its webhook was deleted.
 */
export async function claim(db: Db, row: DeliveryRow, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ status: 'sending', next_attempt_at: new Date(now.getTime() + LEASE_MS).toISOString(), updated_at: now.toISOString() })
    .where('id', '=', row.id)
    .where('status', '=', row.status)
    .where('next_attempt_at', '=', row.next_attempt_at)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Creates a test delivery already claimed by the caller, who sends it at once. */
export async function createTestDelivery(db: Db, webhookId: string, now: Date, sentAt: string): Promise<DeliveryRow> {
  const at = now.toISOString();
  const row: DeliveryRow = {
    id: newId(),
    webhook_id: webhookId,
    kind: 'test',
    http_traffic_id: null,
    payload: JSON.stringify({ sentAt }),
    status: 'sending',
    attempts: 0,
    next_attempt_at: new Date(now.getTime() + LEASE_MS).toISOString(),
    created_at: at,
    updated_at: at,
  };
  await db.insertInto('webhook_deliveries').values(row).execute();
  return row;
}

/**
 * Records one attempt and moves the delivery on, in one transaction. Returns null when the
 * delivery is gone (its webhook was deleted while the attempt ran): nothing is recorded then.
 */
export async function recordAttempt(
  db: Db,
  row: DeliveryRow,
  verdict: Verdict,
  timing: { readonly startedAt: Date; readonly durationMs: number; readonly now: Date },
): Promise<WebhookAttempt | null> {
  const attempt = row.attempts + 1;
  const now = timing.now.toISOString();
  const nextAttemptAt = verdict.outcome === 'retrying' ? new Date(timing.now.getTime() + verdict.delayMs).toISOString() : null;
  const attemptRow: AttemptRow = {
    id: newId(),
    delivery_id: row.id,
    webhook_id: row.webhook_id,
    kind: row.kind,
    http_traffic_id: row.http_traffic_id,
    attempt,
    outcome: verdict.outcome,
    status_code: verdict.statusCode,
    error: verdict.outcome === 'delivered' ? null : verdict.error,
    duration_ms: Math.max(0, Math.round(timing.durationMs)),
    next_attempt_at: nextAttemptAt,
    created_at: timing.startedAt.toISOString(),
  };
  return db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('webhook_deliveries')
      .set({
        status: verdict.outcome === 'retrying' ? 'pending' : verdict.outcome,
        attempts: attempt,
        next_attempt_at: nextAttemptAt ?? now,
        updated_at: now,
      })
      .where('id', '=', row.id)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) !== 1) return null;
    await trx.insertInto('webhook_attempts').values(attemptRow).execute();
    return toAttempt(attemptRow);
  });
}

/** Finished deliveries (and their attempts) are kept for a week, then dropped. */
export const KEEP_FINISHED_MS = 7 * 24 * 60 * 60_000;

export async function pruneFinished(db: Db, now: Date): Promise<void> {
  await db
    .deleteFrom('webhook_deliveries')
    .where('status', 'in', ['delivered', 'failed'])
    .where('updated_at', '<', new Date(now.getTime() - KEEP_FINISHED_MS).toISOString())
    .execute();
}

/** Queues a message (a traffic entry or a storm summary), due at `dueAt`. */
export function insertDelivery(db: Executor, row: { id: string; webhookId: string; kind: Extract<DeliveryKind, 'traffic' | 'summary'>; trafficId: string | null; payload: unknown; dueAt: string; now: string }) {
  return db
    .insertInto('webhook_deliveries')
    .values({
      id: row.id,
      webhook_id: row.webhookId,
      kind: row.kind,
      http_traffic_id: row.trafficId,
      payload: JSON.stringify(row.payload),
      status: 'pending' as const,
      attempts: 0,
      next_attempt_at: row.dueAt,
      created_at: row.now,
      updated_at: row.now,
    })
    .execute();
}


/** A summary still pending gets more entries folded into its payload. */
export async function updateSummaryPayload(db: Executor, id: string, payload: unknown, now: string): Promise<void> {
  await db.updateTable('webhook_deliveries').set({ payload: JSON.stringify(payload), updated_at: now }).where('id', '=', id).execute();
}

/** A webhook's storm-control window: one row per webhook, inserted once, then updated. */
export async function saveWindow(db: Executor, window: WindowRow, stored: boolean): Promise<void> {
  if (stored) await db.updateTable('webhook_windows').set(window).where('webhook_id', '=', window.webhook_id).execute();
  else await db.insertInto('webhook_windows').values(window).execute();
}

/** What storm control needs of every webhook of the sources: its window and its pending summary. */
export interface WindowStateRow {
  id: string;
  level: string;
  traffic_source_id: string;
  started_at: string | null;
  messages: number | null;
  summary_id: string | null;
  summary_payload: string | null;
  summary_status: string | null;
}

/** One query per ingest batch, webhooks or not. */
export async function loadWindowStates(db: Executor, sourceIds: readonly string[]): Promise<WindowStateRow[]> {
  // Plain SQL (portable: Kysely binds the parameters per dialect) because this runs on every
  // ingest, and building the same query through the builder costs more than running it.
  const { rows } = await sql<WindowStateRow>`
    select w.id, w.level, w.traffic_source_id, win.started_at, win.messages, win.summary_id,
           s.payload as summary_payload, s.status as summary_status
    from webhooks w
    left join webhook_windows win on win.webhook_id = w.id
    left join webhook_deliveries s on s.id = win.summary_id
    where w.traffic_source_id in (${sql.join(sourceIds)})`.execute(db);
  return rows;
}
