import { setTimeout as delay } from 'node:timers/promises';
import { ApiError, createReconnectSchedule, type HttpTraffic, type Page, UnreachableError } from '@tapline/shared';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { describeError, type StreamStatus, type UiApi } from '../api.js';
import { type StatsSnapshot, tableStats } from '../live-stats.js';
import { addNewer, addOlder, emptyTable, type TableState } from '../table-state.js';

/** The stream's state, or `failed`: the feed gave up (an answer retrying cannot fix, such as a refused token). */
export type FeedStatus = StreamStatus | { readonly state: 'failed'; readonly reason: string };

export interface TrafficFeed {
  readonly table: TableState;
  readonly status: FeedStatus;
  readonly stats: StatsSnapshot;
  /** The last failure (initial load, stream, older page) as one line; null when all is well. */
  readonly error: string | null;
  readonly loadingOlder: boolean;
  /** True once an older page came back short: there is no more history. */
  readonly historyEnd: boolean;
  /** Applies a key's effect to the table (selection, pause). */
  update: (change: (table: TableState) => TableState) => void;
  loadOlder: () => void;
}

export interface FeedOptions {
  /** How often arrived entries are merged into the table: the render pace under load. */
  readonly flushMs?: number;
  readonly statsMs?: number;
  readonly pageSize?: number;
  readonly now?: () => number;
}

/**
 * Loads the newest page of `sourceId` matching `q`, then follows the stream from the newest entry
 * shown. Entries are collected in a ref and merged into state at most every `flushMs`, so a burst
 * of 500 entries per second costs ten renders, not five hundred.
 */
export function useTrafficStream(api: UiApi, sourceId: string, q: string, options: FeedOptions = {}): TrafficFeed {
  const { flushMs = 100, statsMs = 1000, pageSize = 200, now = Date.now } = options;
  const [table, setTable] = useState<TableState>(emptyTable);
  const [status, setStatus] = useState<FeedStatus>({ state: 'connecting' });
  const [error, setError] = useState<string | null>(null);
  const [loadingOlder, setLoadingOlder] = useState(false);
  const [historyEnd, setHistoryEnd] = useState(false);
  // The clock the rate is read against, ticking every `statsMs`; the counts follow the table.
  const [clock, setClock] = useState(now);
  const pending = useRef<HttpTraffic[]>([]);
  const tableRef = useRef(table);
  tableRef.current = table;
  // Paging state: which bound and page the next older fetch asks for; bumped when a whole page shares one timestamp.
  const older = useRef<{ before: string; page: number } | null>(null);
  const generation = useRef(0);
  // Which (source, filter) the state belongs to: until the effect has reset it, show nothing stale.
  const key = `${sourceId}\n${q}`;
  const [loadedKey, setLoadedKey] = useState(key);

  useEffect(() => {
    const gen = ++generation.current;
    const controller = new AbortController();
    const live = () => gen === generation.current && !controller.signal.aborted;
    pending.current = [];
    older.current = null;
    setTable(emptyTable);
    setLoadedKey(key);
    setError(null);
    setHistoryEnd(false);
    setLoadingOlder(false);
    setStatus({ state: 'connecting' });

    const flush = () => {
      if (pending.current.length === 0) return;
      const batch = pending.current;
      pending.current = [];
      setTable((t) => addNewer(t, batch));
    };
    const flushTimer = setInterval(flush, flushMs);
    const statsTimer = setInterval(() => setClock(now()), statsMs);

    // The first page is tried again as the stream is (docs/decisions.md §9.6): a daemon down
    // when the UI starts or a filter is applied must not leave it waiting for ever.
    const firstPage = async (): Promise<Page<HttpTraffic> | undefined> => {
      const schedule = createReconnectSchedule(now);
      for (let attempt = 1; ; attempt++) {
        try {
          return await api.listTraffic(sourceId, { q, limit: pageSize });
        } catch (e) {
          if (!retryable(e) || !live()) throw e;
          const retryInMs = schedule.next();
          setStatus({ state: 'reconnecting', reason: describeError(e), attempt, retryInMs });
          await delay(retryInMs, undefined, { signal: controller.signal }).catch(() => undefined);
          if (!live()) return undefined;
        }
      }
    };

    void (async () => {
      try {
        const first = await firstPage();
        if (!first || !live()) return;
        setTable((t) => addOlder(t, first.data));
        setHistoryEnd(first.data.length < pageSize);
        await api.follow(sourceId, {
          q,
          signal: controller.signal,
          after: first.data[0],
          onEntry: (entry) => {
            if (live()) pending.current.push(entry);
          },
          onStatus: (s) => {
            if (!live()) return;
            setStatus(s);
            if (s.state === 'live') setError(null);
          },
        });
      } catch (e) {
        if (!live()) return;
        setError(describeError(e));
        setStatus({ state: 'failed', reason: describeError(e) });
      }
    })();

    return () => {
      controller.abort();
      clearInterval(flushTimer);
      clearInterval(statsTimer);
    };
    // `now` and the paces are fixed for a feed's life.
    // eslint-disable-next-line react-hooks/exhaustive-deps -- see the line above
  }, [api, sourceId, q]);

  const loadOlder = useCallback(() => {
    const entries = tableRef.current.entries;
    const oldest = entries[entries.length - 1];
    if (loadingOlder || historyEnd || !oldest) return;
    const gen = generation.current;
    const cursor = older.current?.before === oldest.createdAt ? older.current : { before: oldest.createdAt, page: 1 };
    setLoadingOlder(true);
    api
      .listTraffic(sourceId, { q, limit: pageSize, before: cursor.before, page: cursor.page })
      .then((page) => {
        if (gen !== generation.current) return;
        const known = new Set(tableRef.current.entries.map((e) => e.id));
        const fresh = page.data.filter((e) => !known.has(e.id));
        const last = page.data[page.data.length - 1];
        // Every row of the page shares the bound's millisecond: ask for the next page of it.
        older.current =
          last && last.createdAt === cursor.before ? { before: cursor.before, page: cursor.page + 1 } : null;
        if (page.data.length < pageSize) setHistoryEnd(true);
        if (fresh.length > 0) setTable((t) => addOlder(t, fresh));
      })
      .catch((e: unknown) => {
        if (gen === generation.current) setError(describeError(e));
      })
      .finally(() => {
        if (gen === generation.current) setLoadingOlder(false);
      });
  }, [api, sourceId, q, pageSize, loadingOlder, historyEnd]);

  const update = useCallback((change: (t: TableState) => TableState) => setTable(change), []);

  const current = loadedKey === key;
  const shown = current ? table : emptyTable;
  const stats = useMemo<StatsSnapshot>(() => tableStats(shown.entries, clock), [shown.entries, clock]);
  return { table: shown, status, stats, error: current ? error : null, loadingOlder, historyEnd, update, loadOlder };
}

/** Worth another try: no answer at all, or one a restart or a moment cures (5xx, 408, 429). */
const retryable = (e: unknown): boolean =>
  e instanceof UnreachableError || (e instanceof ApiError && (e.status >= 500 || e.status === 408 || e.status === 429));
