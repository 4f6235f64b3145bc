import type { Db, Executor, Store } from '../db/open.js';
import { insertDelivery } from '../webhooks/repo.js';
import type { AlertEventRow, AlertRuleRow, AlertRulesTable } from './table.js';

/**
 * Daemons sharing a database share the evaluation (docs/decisions.md §23.3): a rule is claimed
 * for LEASE_MS by one daemon, evaluated, and its new state, its history row and its outbox rows
 * are written in one transaction only while the claim is still that daemon's. A daemon that died
 * holding a claim loses it when the lease ends; the next evaluation pass of any daemon takes the
 * rule over (lease + one interval: under a minute at the default 30 s).
 */
export const LEASE_MS = 20_000;

/** Claims up to `limit` rules due at `now` whose claim is free (none, or its lease ended). */
export function claimDue({ db, dialect }: Store, owner: string, now: Date, limit: number): Promise<AlertRuleRow[]> {
  const at = now.toISOString();
  const due = db
    .selectFrom('alert_rules')
    .select('id')
    .where('next_eval_at', '<=', at)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', at)]))
    .orderBy('next_eval_at')
    .limit(limit);
  return (
    db
      .updateTable('alert_rules')
      .set({ lease_owner: owner, lease_until: new Date(now.getTime() + LEASE_MS).toISOString() })
      .where('id', 'in', dialect.lockRows(due, 'skip'))
      // Checked again on the row as it is when locked (PostgreSQL re-reads it after a wait).
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', at)]))
      .returningAll()
      .execute()
  );
}

export type StatePatch = Pick<
  AlertRulesTable,
  | 'state'
  | 'state_since'
  | 'firing_since'
  | 'clear_since'
  | 'notified_at'
  | 'last_value'
  | 'last_requests'
  | 'evaluated_at'
  | 'next_eval_at'
>;

export interface Outcome {
  readonly patch: StatePatch;
  readonly event: AlertEventRow | null;
  /** One message per webhook, JSON payloads of kind `alert`. */
  readonly messages: readonly { readonly id: string; readonly webhookId: string; readonly payload: unknown }[];
}

/**
 * Writes one evaluation's outcome if `claimed` is still this daemon's claim; false (and nothing
 * written) when it is not: the rule was deleted, or the lease ran out and another daemon took it.
 */
export async function commitOutcome(db: Db, claimed: AlertRuleRow, outcome: Outcome, now: string): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('alert_rules')
      .set({ ...outcome.patch, lease_owner: null, lease_until: null })
      .where('id', '=', claimed.id)
      .where('lease_owner', '=', claimed.lease_owner)
      .where('lease_until', '=', claimed.lease_until)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) !== 1) return false;
    if (outcome.event) await trx.insertInto('alert_events').values(outcome.event).execute();
    await queueMessages(trx, outcome.messages, now);
    return true;
  });
}

/** Queues messages outside an evaluation (`tapline alerts test`). */
export async function queueMessages(db: Executor, messages: Outcome['messages'], now: string): Promise<void> {
  for (const m of messages)
    await insertDelivery(db, {
      id: m.id,
      webhookId: m.webhookId,
      kind: 'alert',
      trafficId: null,
      payload: m.payload,
      dueAt: now,
      now,
    });
}
