import { durationMs, type HttpTrafficRecord, type TrafficFilters } from '@tapline/shared';
import type { Store } from '../db/open.js';
import { invalidField } from '../http/errors.js';
import { type HarCursor, recordsAfter } from '../har/repo.js';

/** Whole records read per query: one page (bodies included) is the most either pass holds. */
const PAGE = 200;

export interface RecordWindow {
  readonly since?: string | undefined;
  readonly until?: string | undefined;
  readonly route?: readonly string[] | undefined;
}

/** A duration back from `now`, or an ISO 8601 time (the schema let only these through). */
const instantOf = (text: string, now: number): string => {
  const span = durationMs(text);
  return new Date(span !== undefined ? now - span : Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00.000Z` : text)).toISOString();
};

/** The list's filters for a window: stored times compared as text, both ends inclusive. */
export function filtersOf(window: RecordWindow, now: number): TrafficFilters {
  const filters: TrafficFilters = {};
  if (window.since) filters.startDate = instantOf(window.since, now);
  if (window.until) filters.endDate = instantOf(window.until, now);
  if (filters.startDate && filters.endDate && filters.startDate > filters.endDate) {
    throw invalidField('since', `since (${filters.startDate}) must be before until (${filters.endDate})`);
  }
  return filters;
}

/**
 * Every record of a source in a window, oldest first (by time, then id: the order, and so the
 * inferred document, is the same at every read), one page at a time: memory holds one page
 * whatever the number of entries. With routes, each route's entries in turn, sorted by template.
 */
export async function* eachRecord(store: Store, sourceId: string, window: RecordWindow, now: number): AsyncGenerator<HttpTrafficRecord> {
  const base = filtersOf(window, now);
  const routes = window.route ? [...new Set(window.route)].sort() : [undefined];
  for (const route of routes) {
    const filters: TrafficFilters = route === undefined ? base : { ...base, route };
    let cursor: HarCursor | null = null;
    for (;;) {
      const records = await recordsAfter(store, sourceId, filters, cursor, PAGE);
      yield* records;
      const last = records.at(-1);
      if (!last || records.length < PAGE) break;
      cursor = { createdAt: last.createdAt, id: last.id };
    }
  }
}
