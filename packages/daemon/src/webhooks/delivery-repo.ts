import type { WebhookAttempt } from '@tapline/shared';
import { newId } from '../clock.js';
import type { Db, Store } from '../db/open.js';
import { toAttempt } from './repo.js';
import type { Verdict } from './retry.js';
import type { AttemptRow, DeliveryRow } from './table.js';

/**
 * The outbox as a queue: claiming due messages under a lease, recording attempts, pruning. Daemons
 * sharing a database share it, and each message is claimed by one of them (docs/decisions.md §8.13).
 */

/** How long a claimed delivery stays with its sender; after that (a crash mid-send) it is due again. */
export const LEASE_MS = 30_000;

/** When the next delivery falls due (a claimed one: when its lease ends), so the worker can sleep until then. */
export async function nextDueAt(db: Db): Promise<string | null> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.min('next_attempt_at').as('at'))
    .where('status', 'in', ['pending', 'sending'])
    .executeTakeFirst();
  return row?.at ?? null;
}

/**
 * Claims what is due at `now` for this sender, with a lease of LEASE_MS: the oldest due message of
 * each webhook that has none in flight, so one webhook's messages go out one at a time and in
 * order, whichever daemon sends them (a message waiting for its retry lets later ones pass). A message whose sender's lease ran out (it died mid-send) is
 * due again. On PostgreSQL rows another daemon is claiming at this instant are skipped (`FOR
 * UPDATE SKIP LOCKED`); each row is claimed by exactly one daemon.
 */
export function claimDue({ db, dialect }: Store, now: Date, limit: number): Promise<DeliveryRow[]> {
  const at = now.toISOString();
  const heads = db
    .selectFrom('webhook_deliveries as d')
    .select('d.id')
    .where('d.status', 'in', ['pending', 'sending'])
    .where('d.next_attempt_at', '<=', at)
    .where((outer) =>
      outer.not(
        outer.exists(
          outer
            .selectFrom('webhook_deliveries as o')
            .select('o.id')
            .whereRef('o.webhook_id', '=', 'd.webhook_id')
            .where((eb) =>
              eb.or([
                // Another message of the webhook is being sent (its lease has not run out)...
                eb.and([eb('o.status', '=', 'sending'), eb('o.next_attempt_at', '>', at)]),
                // ...or an older one (ids are in queue order) is due too, a retry or a message
                // whose sender died among them.
                eb.and([
                  eb('o.status', 'in', ['pending', 'sending']),
                  eb('o.next_attempt_at', '<=', at),
                  eb('o.id', '<', eb.ref('d.id')),
                ]),
              ]),
            ),
        ),
      ),
    )
    .orderBy('d.next_attempt_at')
    .orderBy('d.id')
    .limit(limit);
  return db
    .updateTable('webhook_deliveries')
    .set({ status: 'sending', next_attempt_at: new Date(now.getTime() + LEASE_MS).toISOString(), updated_at: at })
    .where('id', 'in', dialect.lockRows(heads, 'skip'))
    .returningAll()
    .execute();
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
 * delivery is gone (its webhook was deleted while the attempt ran) or no longer ours: nothing is
 * recorded then.
 */
export async function recordAttempt(
  db: Db,
  row: DeliveryRow,
  verdict: Verdict,
  timing: { readonly startedAt: Date; readonly durationMs: number; readonly now: Date },
): Promise<WebhookAttempt | null> {
  const attempt = row.attempts + 1;
  const now = timing.now.toISOString();
  const nextAttemptAt =
    verdict.outcome === 'retrying' ? new Date(timing.now.getTime() + verdict.delayMs).toISOString() : null;
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
      // Still ours: not deleted with its webhook, nor taken over by another daemon after our lease.
      .where('status', '=', 'sending')
      .where('next_attempt_at', '=', row.next_attempt_at)
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
