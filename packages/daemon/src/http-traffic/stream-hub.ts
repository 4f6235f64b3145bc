import { evaluateFilter, type HttpTraffic, type TrafficFilters } from '@tapline/shared';
import type { StoredEntry, TrafficBus } from './bus.js';

export type EntryListener = (entries: readonly StoredEntry[]) => void;

/**
 * One bus subscription for every open stream, keyed by source, so a publish costs a map look-up
 * plus, per stream of that source, an in-memory filter and an array push. No database work and no
 * I/O happens on the ingest path; each entry is serialised once however many streams send it.
 */
export interface StreamHub {
  subscribe(sourceId: string, listener: EntryListener): () => void;
  /** The entry's `id:`/`data:` event text, shared by every stream. */
  eventText(entry: HttpTraffic): string;
  readonly listeners: number;
}

export function createStreamHub(bus: TrafficBus): StreamHub {
  const bySource = new Map<string, Set<EntryListener>>();
  const texts = new WeakMap<HttpTraffic, string>();
  let count = 0;
  let unsubscribe: (() => void) | undefined;

  function publish(entries: readonly StoredEntry[]): void {
    const first = entries[0];
    if (!first) return;
    // A batch is one source's, almost always; group only when it is not.
    const single = entries.every((e) => e.trafficSourceId === first.trafficSourceId);
    const groups = new Map<string, readonly StoredEntry[]>();
    if (single) groups.set(first.trafficSourceId, entries);
    else for (const e of entries) groups.set(e.trafficSourceId, [...(groups.get(e.trafficSourceId) ?? []), e]);
    for (const [sourceId, group] of groups) {
      for (const listener of bySource.get(sourceId) ?? []) listener(group);
    }
  }

  return {
    subscribe(sourceId, listener) {
      let set = bySource.get(sourceId);
      if (!set) bySource.set(sourceId, (set = new Set()));
      set.add(listener);
      count++;
      unsubscribe ??= bus.subscribe(publish);
      return () => {
        if (!set.delete(listener)) return;
        count--;
        if (set.size === 0) bySource.delete(sourceId);
        if (count === 0) {
          unsubscribe?.();
          unsubscribe = undefined;
        }
      };
    },
    eventText(entry) {
      let text = texts.get(entry);
      if (text === undefined) {
        text = `id: ${entry.id}\ndata: ${JSON.stringify(entry)}\n\n`;
        texts.set(entry, text);
      }
      return text;
    },
    get listeners() {
      return count;
    },
  };
}

/**
 * The list's filters tested in memory, with the meaning trafficFilter gives them in SQL.
 * `undefined`: the `q` part needs the record (a header or body condition); ask the database.
 */
export function matchLive(entry: HttpTraffic, filters: TrafficFilters): boolean | undefined {
  if (filters.startDate && entry.createdAt < filters.startDate) return false;
  if (filters.endDate && entry.createdAt > filters.endDate) return false;
  if (filters.domainId && entry.domainId !== filters.domainId) return false;
  if (filters.pathnameId && entry.pathnameId !== filters.pathnameId) return false;
  if (filters.method && entry.method !== filters.method) return false;
  if (filters.level && entry.level !== filters.level) return false;
  if (filters.status && (entry.status < filters.status.min || entry.status > filters.status.max)) return false;
  return filters.q ? evaluateFilter(filters.q, entry) : true;
}
