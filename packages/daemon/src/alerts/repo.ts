import type { AlertCondition, AlertEvent, AlertRule, CreateAlertRule, PageQuery } from '@tapline/shared';
import { durationMs } from '@tapline/shared/lean';
import { type Clock, isoNow, newId } from '../clock.js';
import type { Db, Executor } from '../db/open.js';
import { newestFirst } from '../http/pagination.js';
import { type Schemas, schemas } from '../http/schemas.js';
import type { AlertEventRow, AlertRuleRow } from './table.js';

/** Every SQL statement of alert rules, their webhooks and their history; rows become wire objects here only. */

const num = (v: number | string | null): number | null => (v === null ? null : Number(v));

export const toRule = (row: AlertRuleRow, webhookIds: readonly string[]): AlertRule => ({
  id: row.id,
  trafficSourceId: row.traffic_source_id,
  when: row.condition,
  metric: row.metric,
  operator: row.operator,
  threshold: Number(row.threshold),
  baselineDays: row.baseline_days,
  route: row.route,
  method: row.method,
  forMs: Number(row.for_ms),
  windowMs: Number(row.window_ms),
  minRequests: Number(row.min_requests),
  repeatMs: num(row.repeat_ms),
  webhookIds: [...webhookIds],
  state: row.state,
  stateSince: row.state_since,
  lastValue: num(row.last_value),
  lastRequests: num(row.last_requests),
  evaluatedAt: row.evaluated_at,
  createdAt: row.created_at,
});

/** A transition's row as the wire object; its baseline read with the contract's schema. */
const toEvent = (
  row: AlertEventRow & { condition: string },
  { AlertBaseline }: Pick<Schemas, 'AlertBaseline'>,
): AlertEvent => ({
  id: row.id,
  ruleId: row.rule_id,
  when: row.condition,
  from: row.from_state,
  to: row.to_state,
  at: row.created_at,
  value: num(row.value),
  threshold: num(row.threshold),
  windowSince: row.window_since,
  windowUntil: row.window_until,
  requests: Number(row.requests),
  baseline: row.baseline === null ? null : AlertBaseline.parse(JSON.parse(row.baseline)),
  notified: Number(row.notified),
});

/** The webhooks of each rule that still exist (deleting a webhook cascades to its links). */
export async function webhookIdsOf(db: Executor, ruleIds: readonly string[]): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>();
  if (ruleIds.length === 0) return found;
  const rows = await db
    .selectFrom('alert_rule_webhooks')
    .select(['rule_id', 'webhook_id'])
    .where('rule_id', 'in', ruleIds)
    .orderBy('webhook_id')
    .execute();
  for (const row of rows) found.set(row.rule_id, [...(found.get(row.rule_id) ?? []), row.webhook_id]);
  return found;
}

export async function listRules(db: Db, sourceId: string, page: PageQuery) {
  const base = db.selectFrom('alert_rules').where('traffic_source_id', '=', sourceId);
  const listed = await newestFirst(
    page,
    base,
    (q) => q.selectAll(),
    (row) => row,
  );
  const links = await webhookIdsOf(
    db,
    listed.data.map((r) => r.id),
  );
  return { data: listed.data.map((r) => toRule(r, links.get(r.id) ?? [])), meta: listed.meta };
}

export function findRule(db: Executor, id: string): Promise<AlertRuleRow | undefined> {
  return db.selectFrom('alert_rules').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function createRule(
  db: Db,
  clock: Clock,
  sourceId: string,
  input: CreateAlertRule,
  condition: AlertCondition,
): Promise<AlertRule> {
  const now = isoNow(clock);
  const span = (text: string | undefined) => (text === undefined ? null : (durationMs(text) ?? null));
  const row: AlertRuleRow = {
    id: newId(),
    traffic_source_id: sourceId,
    condition: input.when.trim().replace(/\s+/g, ' '),
    metric: condition.metric,
    operator: condition.operator,
    threshold: condition.threshold,
    baseline_days: condition.baseline ? Number.parseInt(input.baseline ?? '7', 10) : null,
    route: input.route ?? null,
    method: input.method ?? null,
    for_ms: span(input.for) ?? 0,
    window_ms: span(input.window) ?? 300_000,
    min_requests: input.minRequests ?? 10,
    repeat_ms: span(input.repeat),
    state: 'ok',
    state_since: now,
    firing_since: null,
    clear_since: null,
    notified_at: null,
    last_value: null,
    last_requests: null,
    evaluated_at: null,
    next_eval_at: now,
    lease_owner: null,
    lease_until: null,
    created_at: now,
  };
  const webhookIds = [...new Set(input.webhookIds)].sort();
  await db.transaction().execute(async (trx) => {
    await trx.insertInto('alert_rules').values(row).execute();
    await trx
      .insertInto('alert_rule_webhooks')
      .values(webhookIds.map((webhook_id) => ({ rule_id: row.id, webhook_id })))
      .execute();
  });
  return toRule(row, webhookIds);
}

export async function deleteRule(db: Db, id: string): Promise<void> {
  await db.deleteFrom('alert_rules').where('id', '=', id).execute();
}

/** The history, newest first; each transition names its rule's condition (events go with their rule). */
export async function listEvents(db: Db, sourceId: string, page: PageQuery) {
  const listed = await newestFirst(
    page,
    db.selectFrom('alert_events').where('traffic_source_id', '=', sourceId),
    (q) => q.selectAll(),
    (row) => row,
  );
  const ruleIds = [...new Set(listed.data.map((e) => e.rule_id))];
  const rules =
    ruleIds.length === 0
      ? []
      : await db.selectFrom('alert_rules').select(['id', 'condition']).where('id', 'in', ruleIds).execute();
  const conditions = new Map(rules.map((r) => [r.id, r.condition]));
  const loaded = await schemas();
  return {
    data: listed.data.map((e) => toEvent({ ...e, condition: conditions.get(e.rule_id) ?? '' }, loaded)),
    meta: listed.meta,
  };
}

export async function insertEvent(db: Executor, row: AlertEventRow): Promise<void> {
  await db.insertInto('alert_events').values(row).execute();
}
