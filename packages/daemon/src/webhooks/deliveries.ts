import type { PageQuery, WebhookAttempt } from '@tapline/shared';
import type { Db } from '../db/open.js';
import type { WebhookAttemptsTable, WebhookDeliveriesTable } from './table.js';
import { newId } from '../clock.js';
import { countRows, paginate } from '../http/pagination.js';
import type { Verdict } from './retry.js';

/** How long a claimed delivery stays with its sender; after that (a crash mid-send) it is due again. */
export const LEASE_MS = 30_000;

export type DeliveryRow = WebhookDeliveriesTable;

const toAttempt = (row: WebhookAttemptsTable): WebhookAttempt => ({
  id: row.id,
  deliveryId: row.delivery_id,
  kind: row.kind as WebhookAttempt['kind'],
  httpTrafficId: row.http_traffic_id,
  attempt: row.attempt,
  outcome: row.outcome as WebhookAttempt['outcome'],
  statusCode: row.status_code,
  error: row.error,
  durationMs: row.duration_ms,
  nextAttemptAt: row.next_attempt_at,
  createdAt: row.created_at,
});

export function listAttempts(db: Db, webhookId: string, page: PageQuery) {
  const base = db.selectFrom('webhook_attempts').where('webhook_id', '=', webhookId);
  return paginate(
    page,
    () => countRows(base),
    async (limit, offset) =>
      (await base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute()).map(toAttempt),
  );
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
  const attemptRow: WebhookAttemptsTable = {
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
