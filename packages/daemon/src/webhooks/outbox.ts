import type { Kysely, Transaction } from 'kysely';
import type { DB, WebhookWindowsTable } from '../db/schema.js';
import { newId } from '../deps.js';
import type { IngestHook, StoredEntry } from '../http-traffic/bus.js';
import { MAX_SUMMARY_PATHS, type SummaryPayload } from './format.js';

/** decisions.md: at most 5 messages per webhook per minute; the rest of that minute is one summary. */
export const MESSAGES_PER_WINDOW = 5;
export const WINDOW_MS = 60_000;

type Executor = Kysely<DB> | Transaction<DB>;

const at = (ms: number) => new Date(ms).toISOString();

async function insertDelivery(db: Executor, row: { webhookId: string; kind: 'traffic' | 'summary'; trafficId: string | null; payload: unknown; dueAt: string; now: string }) {
  const id = newId();
  await db
    .insertInto('webhook_deliveries')
    .values({
      id,
      webhook_id: row.webhookId,
      kind: row.kind,
      http_traffic_id: row.trafficId,
      payload: JSON.stringify(row.payload),
      status: 'pending',
      attempts: 0,
      next_attempt_at: row.dueAt,
      created_at: row.now,
      updated_at: row.now,
    })
    .execute();
  return id;
}

/**
 * The window an entry at `now` falls in. A window opens with the first message after a quiet
 * spell and lasts a minute. A window that ended with a summary hands over to the next one at
 * once, and its summary (sent as it closes) is that next window's first message, so a storm
 * never gets more than 5 messages into any of its windows.
 */
function currentWindow(previous: WebhookWindowsTable | undefined, webhookId: string, now: number): WebhookWindowsTable {
  if (previous) {
    const start = Date.parse(previous.started_at);
    if (now < start + WINDOW_MS) return previous;
    if (previous.summary_id && now < start + 2 * WINDOW_MS) return { webhook_id: webhookId, started_at: at(start + WINDOW_MS), messages: 1, summary_id: null };
  }
  return { webhook_id: webhookId, started_at: at(now), messages: 0, summary_id: null };
}

function fold(summary: SummaryPayload, pathname: string): SummaryPayload {
  const known = pathname in summary.pathnames || Object.keys(summary.pathnames).length < MAX_SUMMARY_PATHS;
  return {
    ...summary,
    count: summary.count + 1,
    pathnames: known ? { ...summary.pathnames, [pathname]: (summary.pathnames[pathname] ?? 0) + 1 } : summary.pathnames,
    others: known ? summary.others : summary.others + 1,
  };
}

/** Queues one entry for one webhook: a message of its own, or a count in the window's summary. */
async function enqueue(db: Executor, webhookId: string, entry: StoredEntry): Promise<void> {
  const now = Date.parse(entry.createdAt);
  const previous = await db.selectFrom('webhook_windows').selectAll().where('webhook_id', '=', webhookId).executeTakeFirst();
  const window = currentWindow(previous, webhookId, now);

  if (window.messages < MESSAGES_PER_WINDOW) {
    await insertDelivery(db, { webhookId, kind: 'traffic', trafficId: entry.id, payload: entry, dueAt: entry.createdAt, now: entry.createdAt });
    window.messages += 1;
  } else if (window.summary_id) {
    const row = await db.selectFrom('webhook_deliveries').select('payload').where('id', '=', window.summary_id).executeTakeFirst();
    if (row) {
      const payload = JSON.stringify(fold(JSON.parse(row.payload) as SummaryPayload, entry.pathname));
      await db.updateTable('webhook_deliveries').set({ payload, updated_at: entry.createdAt }).where('id', '=', window.summary_id).execute();
    }
  } else {
    const windowEnd = at(Date.parse(window.started_at) + WINDOW_MS);
    const empty: SummaryPayload = { level: entry.level, count: 0, pathnames: {}, others: 0, windowStart: window.started_at, windowEnd };
    window.summary_id = await insertDelivery(db, { webhookId, kind: 'summary', trafficId: null, payload: fold(empty, entry.pathname), dueAt: windowEnd, now: entry.createdAt });
  }

  if (previous) await db.updateTable('webhook_windows').set(window).where('webhook_id', '=', webhookId).execute();
  else await db.insertInto('webhook_windows').values(window).execute();
}

/**
 * Runs inside the transaction that stores the entries: a webhook fires for each entry whose level
 * equals its own (lower case), and its delivery rows commit with the entry or not at all.
 */
export async function enqueueNotifications(db: Executor, entries: readonly StoredEntry[]): Promise<number> {
  const sourceIds = [...new Set(entries.map((e) => e.trafficSourceId))];
  if (sourceIds.length === 0) return 0;
  const webhooks = await db.selectFrom('webhooks').select(['id', 'level', 'traffic_source_id']).where('traffic_source_id', 'in', sourceIds).execute();
  if (webhooks.length === 0) return 0;
  let queued = 0;
  for (const entry of entries) {
    const level = entry.level.toLowerCase();
    for (const webhook of webhooks) {
      if (webhook.traffic_source_id !== entry.trafficSourceId || webhook.level !== level) continue;
      await enqueue(db, webhook.id, entry);
      queued += 1;
    }
  }
  return queued;
}

export const outboxHook: IngestHook = async (trx, entries) => {
  await enqueueNotifications(trx, entries);
};
