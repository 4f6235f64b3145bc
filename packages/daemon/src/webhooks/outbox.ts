import { newId } from '../clock.js';
import type { SqlDialect } from '../db/dialect.js';
import type { Executor } from '../db/open.js';
import type { StoredEntry } from '../stream/bus.js';
import { MAX_SUMMARY_PATHS, type SummaryPayload, summaryPayload } from './format.js';
import { insertDelivery, loadWindowStates, lockStormState, saveWindow, updateSummaryPayload } from './repo.js';
import type { WindowRow } from './table.js';

/** docs/decisions.md §8.7: at most 5 messages per webhook per minute; the rest of that minute is one summary. */
export const MESSAGES_PER_WINDOW = 5;
export const WINDOW_MS = 60_000;

const at = (ms: number) => new Date(ms).toISOString();

/**
 * The window an entry at `now` falls in. A window opens with the first message after a quiet
 * spell and lasts a minute. A window that ended with a summary hands over to the next one at
 * once, and its summary (sent as it closes) is that next window's first message, so a storm
 * never gets more than 5 messages into any of its windows.
 */
function currentWindow(previous: WindowRow | null, webhookId: string, now: number): WindowRow {
  if (previous) {
    const start = Date.parse(previous.started_at);
    if (now < start + WINDOW_MS) return previous;
    if (previous.summary_id && now < start + 2 * WINDOW_MS)
      return { webhook_id: webhookId, started_at: at(start + WINDOW_MS), messages: 1, summary_id: null };
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

/** One webhook's storm-control state while a batch is queued; written back once at the end. */
interface WebhookState {
  readonly id: string;
  readonly level: string;
  readonly sourceId: string;
  readonly stored: boolean;
  window: WindowRow | null;
  windowChanged: boolean;
  /** The open window's summary, when it has one that is still pending. */
  summary: { readonly id: string; payload: SummaryPayload; readonly isNew: boolean; changed: boolean } | null;
}

async function flushSummary(db: Executor, state: WebhookState, now: string): Promise<void> {
  const s = state.summary;
  if (!s?.changed) return;
  if (s.isNew)
    await insertDelivery(db, {
      id: s.id,
      webhookId: state.id,
      kind: 'summary',
      trafficId: null,
      payload: s.payload,
      dueAt: s.payload.windowEnd,
      now,
    });
  else await updateSummaryPayload(db, s.id, s.payload, now);
  s.changed = false;
}

/** Queues one entry for one webhook: a message of its own, or a count in the window's summary. Returns true for a new row. */
async function enqueue(db: Executor, state: WebhookState, entry: StoredEntry): Promise<boolean> {
  const window = currentWindow(state.window, state.id, Date.parse(entry.createdAt));
  if (window !== state.window) {
    await flushSummary(db, state, entry.createdAt);
    state.window = window;
    state.summary = null;
    state.windowChanged = true;
  }
  if (window.messages < MESSAGES_PER_WINDOW) {
    await insertDelivery(db, {
      id: newId(),
      webhookId: state.id,
      kind: 'traffic',
      trafficId: entry.id,
      payload: entry,
      dueAt: entry.createdAt,
      now: entry.createdAt,
    });
    window.messages += 1;
    state.windowChanged = true;
    return true;
  }
  if (state.summary) {
    state.summary.payload = fold(state.summary.payload, entry.pathname);
    state.summary.changed = true;
    return false;
  }
  const windowEnd = at(Date.parse(window.started_at) + WINDOW_MS);
  const empty: SummaryPayload = {
    level: entry.level,
    count: 0,
    pathnames: {},
    others: 0,
    windowStart: window.started_at,
    windowEnd,
  };
  state.summary = { id: newId(), payload: fold(empty, entry.pathname), isNew: true, changed: true };
  window.summary_id = state.summary.id;
  state.windowChanged = true;
  return true;
}

/** Every webhook of the sources with its window and pending summary. */
async function loadStates(db: Executor, dialect: SqlDialect, sourceIds: readonly string[]): Promise<WebhookState[]> {
  const rows = await loadWindowStates(db, dialect, sourceIds);
  if (rows.length === 0) return []; // no webhook: ingest builds no schema for one
  const Summary = await summaryPayload();
  return rows.map((r) => {
    const window =
      r.started_at !== null && r.messages !== null
        ? { webhook_id: r.id, started_at: r.started_at, messages: r.messages, summary_id: r.summary_id }
        : null;
    // A summary already claimed by the worker is not folded into any more: the window's later
    // entries start a new summary, due at once. Its payload was written from a SummaryPayload.
    const summary =
      r.summary_id && r.summary_payload && r.summary_status === 'pending'
        ? {
            id: r.summary_id,
            payload: Summary.parse(JSON.parse(r.summary_payload)),
            isNew: false,
            changed: false,
          }
        : null;
    return {
      id: r.id,
      level: r.level,
      sourceId: r.traffic_source_id,
      stored: window !== null,
      window,
      windowChanged: false,
      summary,
    };
  });
}

/**
 * Runs inside the transaction that stores the entries: a webhook fires for each entry whose level
 * equals its own (lower case), and its delivery rows commit with the entry or not at all.
 * Returns true when a new delivery row was written (the worker then has something to schedule).
 */
export async function enqueueNotifications(
  db: Executor,
  dialect: SqlDialect,
  entries: readonly StoredEntry[],
): Promise<boolean> {
  const sourceIds = [...new Set(entries.map((e) => e.trafficSourceId))];
  if (sourceIds.length === 0) return false;
  let states = await loadStates(db, dialect, sourceIds);
  if (states.length === 0) return false;
  // Several daemons (docs/decisions.md §8.13): decide from the state as it is once it is ours.
  const summaryIds = states.flatMap((state) => (state.summary ? [state.summary.id] : []));
  if (
    await lockStormState(
      db,
      dialect,
      states.map((state) => state.id),
      summaryIds,
    )
  )
    states = await loadStates(db, dialect, sourceIds);
  let created = false;
  for (const entry of entries) {
    const level = entry.level.toLowerCase();
    for (const state of states) {
      if (state.sourceId === entry.trafficSourceId && state.level === level && (await enqueue(db, state, entry)))
        created = true;
    }
  }
  const now = entries[entries.length - 1]?.createdAt ?? new Date(0).toISOString();
  for (const state of states) {
    await flushSummary(db, state, now);
    if (!state.windowChanged || !state.window) continue;
    await saveWindow(db, state.window, state.stored);
  }
  return created;
}
