import type { HttpTraffic } from '@tapline/shared';

/**
 * The live table as a value: entries newest first, the selected row, the first visible row, and
 * whether new entries pull the view to the top. Pure functions, so every key's effect is testable
 * without a terminal.
 */
export interface TableState {
  readonly entries: readonly HttpTraffic[];
  readonly selected: number;
  readonly top: number;
  readonly following: boolean;
  /** Entries that arrived while paused (shown as "N new"). */
  readonly unseen: number;
}

/** Rows kept in memory; older ones are dropped and can be fetched again by paging down. */
export const MAX_ROWS = 5000;

export const emptyTable: TableState = { entries: [], selected: 0, top: 0, following: true, unseen: 0 };

function visible(state: TableState, rows: number): TableState {
  const last = Math.max(0, state.entries.length - 1);
  const selected = Math.min(Math.max(0, state.selected), last);
  let top = Math.min(state.top, selected);
  if (selected >= top + rows) top = selected - rows + 1;
  return { ...state, selected, top: Math.max(0, top) };
}

const ids = (entries: readonly HttpTraffic[]) => new Set(entries.map((e) => e.id));

/** Newer entries (any order) arriving from the stream. Paused views keep their rows in place. */
export function addNewer(state: TableState, incoming: readonly HttpTraffic[]): TableState {
  const known = ids(state.entries);
  const fresh = incoming.filter((e) => !known.has(e.id)).sort(newestFirst);
  if (fresh.length === 0) return state;
  const entries = [...fresh, ...state.entries].slice(0, MAX_ROWS);
  if (state.following) return { ...state, entries, selected: 0, top: 0, unseen: 0 };
  const shift = fresh.length;
  return {
    ...state,
    entries,
    selected: Math.min(state.selected + shift, entries.length - 1),
    top: Math.min(state.top + shift, entries.length - 1),
    unseen: state.unseen + shift,
  };
}

/** An older page fetched on demand, appended below what is loaded. */
export function addOlder(state: TableState, older: readonly HttpTraffic[]): TableState {
  const known = ids(state.entries);
  const fresh = older.filter((e) => !known.has(e.id));
  if (fresh.length === 0) return state;
  return { ...state, entries: [...state.entries, ...fresh].sort(newestFirst) };
}

/** Moves the selection; leaving the newest row stops following so the view holds still. */
export function move(state: TableState, delta: number, rows: number): TableState {
  if (state.entries.length === 0) return state;
  const next = visible({ ...state, selected: state.selected + delta }, rows);
  return { ...next, following: state.following && next.selected === 0 };
}

export function jumpNewest(state: TableState): TableState {
  return { ...state, selected: 0, top: 0 };
}

export function jumpOldest(state: TableState, rows: number): TableState {
  return visible({ ...state, selected: state.entries.length - 1, following: false }, rows);
}

/** Space: pausing freezes the view; resuming jumps back to the newest entry. */
export function togglePause(state: TableState): TableState {
  if (state.following) return { ...state, following: false };
  return { ...state, following: true, selected: 0, top: 0, unseen: 0 };
}

/** Holds the view still (opening a record): the selection stays on its entry as new ones arrive. */
export function pause(state: TableState): TableState {
  return state.following ? { ...state, following: false } : state;
}

/** Re-fits the view after the terminal changed size. */
export function resize(state: TableState, rows: number): TableState {
  return visible(state, Math.max(1, rows));
}

/** True when the selection is close enough to the end of what is loaded to fetch more. */
export function nearEnd(state: TableState, rows: number): boolean {
  return state.entries.length > 0 && state.selected >= state.entries.length - rows;
}

export function newestFirst(a: HttpTraffic, b: HttpTraffic): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}
