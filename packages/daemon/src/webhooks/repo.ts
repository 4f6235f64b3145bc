import { randomBytes } from 'node:crypto';
import type { CreatedWebhook, PageQuery, Webhook, WebhookAttempt } from '@tapline/shared';
import { sql } from 'kysely';
import { type Clock, isoNow, newId } from '../clock.js';
import type { Db, Executor } from '../db/open.js';
import type { SqlDialect } from '../db/dialect.js';
import { executeKeptTaking, executeTaking, KeptRead } from '../db/joined.js';
import { newestFirst } from '../http/pagination.js';
import type { AttemptRow, DeliveryKind, WebhookRow, WindowRow } from './table.js';

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

export async function webhookExists(
  db: Db,
  sourceId: string,
  input: Pick<Webhook, 'type' | 'level' | 'value'>,
): Promise<boolean> {
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

export async function createWebhook(
  db: Db,
  clock: Clock,
  sourceId: string,
  input: Pick<Webhook, 'type' | 'level' | 'value'>,
): Promise<CreatedWebhook> {
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

export const toAttempt = (row: AttemptRow): WebhookAttempt => ({
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

/** Queues a message (a traffic entry, a storm summary or an alert), due at `dueAt`. */
export function insertDelivery(
  db: Executor,
  row: {
    id: string;
    webhookId: string;
    kind: Extract<DeliveryKind, 'traffic' | 'summary' | 'alert'>;
    trafficId: string | null;
    payload: unknown;
    dueAt: string;
    now: string;
  },
) {
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
  await db
    .updateTable('webhook_deliveries')
    .set({ payload: JSON.stringify(payload), updated_at: now })
    .where('id', '=', id)
    .execute();
}

/**
 * Storm control decides from a webhook's window and adds to its pending summary, so two daemons
 * storing entries for one webhook at once must take turns, and no worker may claim the summary
 * while it grows: those rows are locked (webhooks in id order, so two transactions never wait for
 * each other crosswise) until the transaction ends. Returns false where writers do not run
 * concurrently (SQLite, whose one writer has the database to itself); true means: read the state
 * again, as it is now that this transaction holds it.
 */
export async function lockStormState(
  db: Executor,
  dialect: SqlDialect,
  webhookIds: readonly string[],
  summaryIds: readonly string[],
): Promise<boolean> {
  if (!dialect.concurrentWriters) return false;
  await dialect
    .lockRows(db.selectFrom('webhooks').select('id').where('id', 'in', webhookIds).orderBy('id'), 'wait')
    .execute();
  if (summaryIds.length > 0)
    await dialect
      .lockRows(db.selectFrom('webhook_deliveries').select('id').where('id', 'in', summaryIds).orderBy('id'), 'wait')
      .execute();
  return true;
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

/**
 * PostgreSQL's read of the sources' window states, one text whatever their number, kept prepared on
 * each connection (db/joined.ts, `executeKeptTaking`; decisions §20.34): it was planned each group.
 * Every result column is cast, so that another daemon's migration cannot change its result's type
 * (which a kept statement refuses, 0A000); `= any` of the ids matches what `in (…)` of them does.
 */
const WINDOW_STATES = `select w.id::text as id, w.level::text as level, w.traffic_source_id::text as traffic_source_id,
       win.started_at::text as started_at, win.messages::integer as messages, win.summary_id::text as summary_id,
       s.payload::text as summary_payload, s.status::text as summary_status
from webhooks w
left join webhook_windows win on win.webhook_id = w.id
left join webhook_deliveries s on s.id = win.summary_id
where w.traffic_source_id = any($1::text[])`;

/** The kept read of the window states, until it fails on a column's type (db/joined.ts). */
const KEPT_WINDOW_STATES = new KeptRead();

/** One query per ingest batch, webhooks or not. */
export async function loadWindowStates(
  db: Executor,
  dialect: SqlDialect,
  sourceIds: readonly string[],
): Promise<WindowStateRow[]> {
  if (dialect.backend === 'postgres') {
    const ids = sourceIds.map((id) => dialect.stored.encode('traffic_source_id', id));
    // With the statistics' last write, waiting on the connection (db/pg-joined.ts).
    return KEPT_WINDOW_STATES.read(
      db,
      () => executeKeptTaking<WindowStateRow>(db, WINDOW_STATES, [ids]),
      () => windowStates(db, dialect, sourceIds),
    );
  }
  return windowStates(db, dialect, sourceIds);
}

/** The sources' window states as one untyped statement: SQLite's, and PostgreSQL's after KEPT_WINDOW_STATES failed. */
async function windowStates(
  db: Executor,
  dialect: SqlDialect,
  sourceIds: readonly string[],
): Promise<WindowStateRow[]> {
  // Plain SQL (portable: Kysely binds the parameters per dialect) because this runs on every
  // ingest, and building the same query through the builder costs more than running it. Raw SQL
  // binds ids in their stored form by hand (db/stored-values.ts).
  const query = sql<WindowStateRow>`
    select w.id, w.level, w.traffic_source_id, win.started_at, win.messages, win.summary_id,
           s.payload as summary_payload, s.status as summary_status
    from webhooks w
    left join webhook_windows win on win.webhook_id = w.id
    left join webhook_deliveries s on s.id = win.summary_id
    where w.traffic_source_id in (${sql.join(sourceIds.map((id) => dialect.stored.encode('traffic_source_id', id)))})`;
  // On PostgreSQL the statistics' last write, waiting on the connection, goes with it (db/pg-joined.ts).
  return executeTaking(db, dialect, { compile: () => query.compile(db) });
}
