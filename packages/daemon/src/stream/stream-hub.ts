import { evaluateFilter } from '@tapline/shared/lean';
import type { HttpTraffic, TrafficFilters } from '@tapline/shared';
import type { Logger } from 'pino';
import type { SqlDialect } from '../db/dialect.js';
import type { Db } from '../db/open.js';
import type { ClusterSignals } from '../db/signals.js';
import { logTaskFailure } from '../db/task-failure.js';
import type { OutageLog } from '../db/unavailable.js';
import type { TrafficBus } from './bus.js';
import { lastStreamSeq, type Sequenced, streamSince } from './stream-repo.js';

export type EntryListener = (committed: readonly Sequenced[]) => void;

/**
 * One feed of committed entries for every open stream, keyed by source, so a new entry costs a
 * map look-up plus, per stream of that source, an in-memory filter and an array push. Each entry
 * is serialised once however many streams send it.
 */
export interface StreamHub {
  subscribe(sourceId: string, listener: EntryListener): () => void;
  /** Resolves once every entry committed from now on will reach the listeners. */
  ready(): Promise<void>;
  /** The entry's `id:`/`data:` event text, shared by every stream. */
  eventText(entry: HttpTraffic): string;
  readonly listeners: number;
}

export interface HubFeed {
  readonly db: Db;
  readonly dialect: SqlDialect;
  readonly bus: TrafficBus;
  readonly signals: ClusterSignals;
  readonly logger: Logger;
  readonly outages: OutageLog;
  /** Following the table, it is read this often even when no signal came (a lost NOTIFY). */
  readonly pollMs?: number;
}

/** Rows per read of the table; a longer backlog is read in several. */
const READ_LIMIT = 1_000;
const POLL_MS = 1_000;

/**
 * SQLite has one writer: the bus's entries come in commit order, and go straight to the streams,
 * with no database work on the ingest path. PostgreSQL commits concurrently (a pool, and other
 * daemons this one never hears of in process): the bus, the other daemons' NOTIFY and a timer only
 * wake the hub, which reads the entries after its position in stream order (docs/decisions.md
 * §9.7), once for all its streams.
 */
export function createStreamHub(feed: HubFeed): StreamHub {
  const bySource = new Map<string, Set<EntryListener>>();
  const texts = new WeakMap<HttpTraffic, string>();
  let count = 0;
  let stopFeed: (() => void) | undefined;
  let position: Promise<number> = Promise.resolve(0);

  function dispatch(committed: readonly Sequenced[]): void {
    const first = committed[0];
    if (!first) return;
    // A batch is one source's, almost always; group only when it is not.
    const sourceId = first.entry.trafficSourceId;
    const groups = new Map<string, readonly Sequenced[]>();
    if (committed.every((c) => c.entry.trafficSourceId === sourceId)) groups.set(sourceId, committed);
    else
      for (const c of committed)
        groups.set(c.entry.trafficSourceId, [...(groups.get(c.entry.trafficSourceId) ?? []), c]);
    for (const [id, group] of groups) {
      for (const listener of bySource.get(id) ?? []) listener(group);
    }
  }

  /** Follows the table from the last number handed out; returns the function that stops it. */
  function followTable(): () => void {
    let reading = false;
    let again = false;
    let stopped = false;
    position = lastStreamSeq(feed.db);
    // Nobody may be waiting on it yet; a rejection is dealt with where it is awaited (knownPosition).
    position.catch(() => undefined);
    async function read(): Promise<void> {
      let after = await knownPosition();
      for (;;) {
        again = false;
        const rows = await streamSince(feed.db, [...bySource.keys()], after, READ_LIMIT);
        if (stopped) return;
        after = rows.at(-1)?.seq ?? after;
        position = Promise.resolve(after);
        dispatch(rows);
        if (rows.length < READ_LIMIT && !again) return;
      }
    }
    function wake(): void {
      if (stopped) return;
      if (reading) {
        again = true;
        return;
      }
      reading = true;
      // The next signal or the poll tries again: a database that is down costs one attempt a second.
      read()
        .catch((error: unknown) => logTaskFailure(feed, error, 'the live stream'))
        .finally(() => (reading = false));
    }
    const stops = [feed.bus.subscribe(wake), feed.signals.listen('traffic', wake)];
    const poll = setInterval(wake, feed.pollMs ?? POLL_MS);
    poll.unref();
    return () => {
      stopped = true;
      clearInterval(poll);
      for (const stop of stops) stop();
    };
  }

  /**
   * The last stream number handed out when the feed started, read again if that read failed (the
   * feed started while the database was down): until it is known, no stream is ready.
   */
  function knownPosition(): Promise<number> {
    return position.catch(() => (position = lastStreamSeq(feed.db)));
  }

  const start = () => (feed.dialect.concurrentWriters ? followTable() : feed.bus.subscribe(dispatch));

  return {
    subscribe(sourceId, listener) {
      let set = bySource.get(sourceId);
      if (!set) bySource.set(sourceId, (set = new Set()));
      set.add(listener);
      count++;
      stopFeed ??= start();
      return () => {
        if (!set.delete(listener)) return;
        count--;
        if (set.size === 0) bySource.delete(sourceId);
        if (count === 0) {
          stopFeed?.();
          stopFeed = undefined;
        }
      };
    },
    ready: () => knownPosition().then(() => undefined),
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
  if (filters.route && entry.route !== filters.route) return false;
  return filters.q ? evaluateFilter(filters.q, entry) : true;
}
