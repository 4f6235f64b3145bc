import type { TrafficSource } from '@tapline/shared';
import type { StoredEntry } from './bus.js';
import { type ComposeDeps, type ComposeItem, type IdCache, storeGroup } from './compose.js';
import type { PreparedRecord } from './prepare.js';

export interface IngestQueue {
  /** Stores one request's records, all or none; resolves with their entries once committed. */
  store(source: TrafficSource, records: readonly PreparedRecord[]): Promise<StoredEntry[]>;
}

interface Waiting extends ComposeItem {
  resolve(entries: StoredEntry[]): void;
  reject(error: unknown): void;
}

/** Bounds the domain/pathname id cache; a busy source has a few hundred paths. */
const MAX_CACHED_IDS = 20_000;

/**
 * Group commit: every compose that arrives in one turn of the event loop shares one transaction.
 * A commit writes every touched page to the WAL, which was the largest single cost of a compose;
 * with 50 clients at once it is now paid once per group. Each request still answers only after
 * its own records are committed. If a group fails, its requests are retried one by one so that
 * one request's failure never fails another's.
 */
export function createIngestQueue(deps: ComposeDeps): IngestQueue {
  const cache: IdCache = { domains: new Map(), pathnames: new Map() };
  let waiting: Waiting[] = [];

  async function run(group: Waiting[]): Promise<void> {
    if (cache.domains.size + cache.pathnames.size > MAX_CACHED_IDS) {
      cache.domains.clear();
      cache.pathnames.clear();
    }
    try {
      const results = await storeGroup(deps, group, cache);
      group.forEach((item, i) => item.resolve(results[i] ?? []));
    } catch (error) {
      // A cached id may name a row deleted with its source by another daemon: forget them all.
      cache.domains.clear();
      cache.pathnames.clear();
      if (group.length === 1) return group[0]?.reject(error);
      for (const item of group) await run([item]);
    }
  }

  function flush(): void {
    const group = waiting;
    waiting = [];
    void run(group);
  }

  return {
    store(source, records) {
      return new Promise((resolve, reject) => {
        if (waiting.length === 0) setImmediate(flush);
        waiting.push({ source, records, resolve, reject });
      });
    },
  };
}
