import { followTraffic, type FollowStatus, type HttpTraffic, type TaplineClient } from '@tapline/shared/browser';
import { useCallback, useEffect, useRef, useState } from 'react';
import { FIRST_PAGE_LIMIT } from '../early.js';
import { firstPage, listNewest, settledFirstPage, withOlder } from '../first-page.js';

/** What the list holds at most: the oldest fall off the end, as in the terminal UI's table. */
export const MAX_ROWS = 200_000;
/** Entries arriving in a burst are added to the list at most this often, not one render each. */
const FLUSH_MS = 100;

export type FeedState = 'loading' | 'live' | 'paused' | 'reconnecting';

export interface TrafficFeed {
  /** Newest first. */
  readonly rows: readonly HttpTraffic[];
  readonly state: FeedState;
  readonly reconnectReason: string | undefined;
  readonly pause: () => void;
  readonly resume: () => void;
}

/**
 * The first page of the source's traffic matching `q` (filled in to the newest LIST_LIMIT behind
 * it once shown), then the stream from the newest entry of that page on (`followTraffic` reconnects with its cursor, docs/decisions.md §9.6). Pausing stops
 * following; resuming starts again from the cursor, so nothing stored meanwhile is missed.
 */
export function useTrafficFeed(
  client: TaplineClient,
  sourceId: string,
  q: string,
  onError: (error: unknown) => void,
): TrafficFeed {
  const [rows, setRows] = useState<readonly HttpTraffic[]>(() => settledFirstPage(client, sourceId, q)?.data ?? []);
  const [state, setState] = useState<FeedState>('loading');
  const [reconnectReason, setReason] = useState<string | undefined>();
  const [following, setFollowing] = useState(true);
  const cursor = useRef<string | undefined>(undefined);
  const loaded = useRef<readonly string[] | undefined>(undefined);
  const pending = useRef<HttpTraffic[]>([]);
  /** The ids the fill added at the end: the stream may bring one of them too (first-page.ts `withOlder`). */
  const filled = useRef(new Set<string>());

  const flush = useCallback(() => {
    const fresh = pending.current.filter((entry) => !filled.current.has(entry.id));
    pending.current = [];
    if (fresh.length === 0) return;
    setRows((current) => [...fresh.reverse(), ...current].slice(0, MAX_ROWS));
  }, []);

  useEffect(() => {
    if (!following) return;
    const controller = new AbortController();
    const timer = setInterval(flush, FLUSH_MS);
    const onStatus = (status: FollowStatus) => {
      if (status.state === 'live') {
        setState('live');
        setReason(undefined);
      } else if (status.state === 'reconnecting') {
        setState('reconnecting');
        setReason(status.reason);
      }
    };
    const start = async () => {
      if (loaded.current === undefined) {
        const page = await firstPage(client, sourceId, q);
        loaded.current = page.data.map((entry) => entry.id);
        cursor.current = page.data[0]?.id;
        setRows(page.data);
        // A full first page may have older entries behind it: the list fills in to the newest
        // LIST_LIMIT once its first rows are shown, while the stream follows.
        if (page.data.length === FIRST_PAGE_LIMIT)
          listNewest(client, sourceId, q).then(
            (newest) =>
              setRows((current) => {
                const next = withOlder(current, newest.data);
                for (const entry of next.slice(current.length)) filled.current.add(entry.id);
                return next.slice(0, MAX_ROWS);
              }),
            (error: unknown) => {
              if (!controller.signal.aborted) onError(error);
            },
          );
      }
      const result = await followTraffic(client, sourceId, {
        q: q || undefined,
        after: cursor.current,
        shown: loaded.current,
        signal: controller.signal,
        onStatus,
        onEntry: (entry) => {
          cursor.current = entry.id;
          pending.current.push(entry);
        },
      });
      cursor.current = result.cursor ?? cursor.current;
    };
    start().catch((error: unknown) => {
      if (!controller.signal.aborted) onError(error);
    });
    return () => {
      controller.abort();
      clearInterval(timer);
      flush();
    };
  }, [client, sourceId, q, following, flush, onError]);

  const pause = useCallback(() => {
    setFollowing(false);
    setState('paused');
  }, []);
  const resume = useCallback(() => setFollowing(true), []);
  return { rows, state, reconnectReason, pause, resume };
}
