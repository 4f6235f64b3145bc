import { queryString, type TaplineClient, UnreachableError } from '../client.js';
import { buildPath } from '../contract.js';
import { ApiError, apiErrorOf } from '../errors.js';
import { HttpTraffic, type TrafficStreamQuery } from '../schemas/http-traffic.js';
import type { z } from 'zod';
import { STREAM_EVENT } from './protocol.js';
import { createReconnectSchedule, type ReconnectSchedule } from './reconnect.js';
import { createSeenIds, type SeenIds } from './seen.js';
import { createSseParser, type SseEvent } from './sse.js';

/** The list's filters as a client sends them; `q` is a filter expression. */
export type TrafficStreamFilters = Omit<z.input<typeof TrafficStreamQuery>, 'after'>;

/**
 * - `connecting`: the first try is under way.
 * - `live`: connected; `reconnected` after an outage (print "reconnected" once).
 * - `reconnecting`: the connection failed or ended; the next try starts in `retryInMs`. Reported
 *   on every try, so show it when `attempt` is 1 and keep quiet for the rest of the outage.
 * - `stopped`: the signal aborted; `followTraffic` resolves next.
 */
export type FollowStatus =
  | { readonly state: 'connecting' }
  | { readonly state: 'live'; readonly cursor: string | undefined; readonly reconnected: boolean }
  | { readonly state: 'reconnecting'; readonly reason: string; readonly attempt: number; readonly retryInMs: number }
  | { readonly state: 'stopped'; readonly cursor: string | undefined };

export interface FollowTrafficOptions {
  readonly filters?: TrafficStreamFilters;
  /** A filter expression; overrides `filters.q`. */
  readonly q?: string;
  /** Resume after this entry id: every matching entry stored after it is delivered first. */
  readonly after?: string;
  /**
   * Ids already shown (the page printed before following): never delivered. The page is in
   * `createdAt` order, the stream in commit order, so entries of the page may follow `after`.
   */
  readonly shown?: Iterable<string>;
  readonly signal?: AbortSignal;
  /** Each matching entry exactly once, in the order they were stored. An exception stops following and rejects. */
  readonly onEntry: (entry: HttpTraffic) => void;
  readonly onStatus?: (status: FollowStatus) => void;
  /** No bytes (entries or heartbeats) for this long means a dead connection. Default 45 s. */
  readonly idleTimeoutMs?: number;
  readonly schedule?: ReconnectSchedule;
}

export interface FollowResult {
  /** The id of the last entry delivered (or the stream's starting cursor): pass it as `after`. */
  readonly cursor: string | undefined;
}

/**
 * Ids remembered to drop repeats: ten times the live entries a daemon holds for a slow client
 * (§9.4), far more than a replay from a cursor standing for an earlier point can repeat.
 */
const SEEN_IDS = 10_000;

/** Answers that retrying cannot fix: a bad filter (400), the token (401), 403, 404. */
const isFatal = (error: unknown): error is ApiError =>
  error instanceof ApiError &&
  error.status >= 400 &&
  error.status < 500 &&
  error.status !== 408 &&
  error.status !== 429;

/**
 * Follows a source's traffic until `signal` aborts, reconnecting with its cursor on the schedule
 * of docs/decisions.md §9.6, so a daemon restart loses and repeats nothing. Resolves with the last cursor
 * when aborted; rejects with an ApiError the daemon answered that retrying cannot fix.
 */
export async function followTraffic(
  client: TaplineClient,
  sourceId: string,
  options: FollowTrafficOptions,
): Promise<FollowResult> {
  const { signal } = options;
  const schedule = options.schedule ?? createReconnectSchedule();
  const report = options.onStatus ?? (() => {});
  const state = {
    cursor: options.after?.toLowerCase(),
    seen: createSeenIds(SEEN_IDS, options.shown),
    connectedOnce: false,
    attempt: 0,
  };

  report({ state: 'connecting' });
  while (!signal?.aborted) {
    let reason: string;
    let retryInMs: number | undefined;
    try {
      const ended = await connectOnce(client, sourceId, options, state, () => {
        report({ state: 'live', cursor: state.cursor, reconnected: state.connectedOnce });
        state.connectedOnce = true;
        state.attempt = 0;
        schedule.reset();
      });
      reason = ended === 'overflow' ? 'fell behind; catching up from the last entry' : 'the daemon closed the stream';
      if (ended === 'overflow') retryInMs = 0;
    } catch (error) {
      if (signal?.aborted) break;
      if (error instanceof ConsumerError) throw error.cause;
      if (isFatal(error) || !isTransient(error)) throw error;
      reason = error.message;
    }
    if (signal?.aborted) break;
    retryInMs ??= schedule.next();
    report({ state: 'reconnecting', reason, attempt: ++state.attempt, retryInMs });
    await sleep(retryInMs, signal);
  }
  report({ state: 'stopped', cursor: state.cursor });
  return { cursor: state.cursor };
}

/** The connection broke, went quiet or answered something that is not an event stream. */
class ConnectionError extends Error {}

/** What `onEntry` threw, carried out of the reading loop untouched. */
class ConsumerError extends Error {
  constructor(override readonly cause: unknown) {
    super('onEntry failed');
  }
}

const isTransient = (error: unknown): error is Error =>
  error instanceof ConnectionError || error instanceof ApiError || error instanceof UnreachableError;

async function connectOnce(
  client: TaplineClient,
  sourceId: string,
  options: FollowTrafficOptions,
  state: { cursor: string | undefined; readonly seen: SeenIds },
  onReady: () => void,
): Promise<'closed' | 'overflow'> {
  const controller = new AbortController();
  const abort = () => controller.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', abort, { once: true });
  const idleMs = options.idleTimeoutMs ?? 45_000;
  let idle: ReturnType<typeof setTimeout> | undefined;
  const touch = () => {
    clearTimeout(idle);
    idle = setTimeout(
      () => controller.abort(new ConnectionError(`no data for ${Math.round(idleMs / 1000)} s`)),
      idleMs,
    );
  };
  try {
    touch();
    const query = { ...options.filters, ...(options.q !== undefined ? { q: options.q } : {}) };
    const path = buildPath('/http-traffic/:trafficSourceId/stream', { trafficSourceId: sourceId }) + queryString(query);
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (state.cursor) headers['last-event-id'] = state.cursor;
    const response = await client.raw(path, { headers, signal: controller.signal });
    if (!response.ok) throw apiErrorOf(response.status, await response.text().catch(() => ''));
    if (!response.body || !/^text\/event-stream/i.test(response.headers.get('content-type') ?? '')) {
      throw new ConnectionError(
        `expected an event stream, got ${response.headers.get('content-type') ?? 'no content type'}`,
      );
    }

    const ended = { overflow: false };
    const parser = createSseParser((event: SseEvent) => {
      if (event.event === STREAM_EVENT.ready) {
        // The daemon names the cursor it follows: the one sent, or its newest entry when none was.
        if (event.id) state.cursor = event.id;
        onReady();
      } else if (event.event === STREAM_EVENT.entry && event.id) {
        // Events come in commit order, which ids from several daemons do not follow (§9.7): an
        // id smaller than the cursor is a new entry that committed late, not a repeat.
        const entry = HttpTraffic.parse(JSON.parse(event.data));
        if (!state.seen.add(event.id)) return;
        state.cursor = event.id;
        try {
          options.onEntry(entry);
        } catch (error) {
          throw new ConsumerError(error);
        }
      } else if (event.event === STREAM_EVENT.overflow) {
        ended.overflow = true;
      }
    });
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        touch();
        parser.feed(value);
        if (ended.overflow) break;
      }
    } catch (error) {
      if (error instanceof ConsumerError) throw error;
      if (controller.signal.reason instanceof ConnectionError) throw controller.signal.reason;
      if (options.signal?.aborted) throw error;
      throw new ConnectionError(`the connection was lost (${describe(error)})`);
    } finally {
      reader.cancel().catch(() => {});
    }
    return ended.overflow ? 'overflow' : 'closed';
  } finally {
    clearTimeout(idle);
    options.signal?.removeEventListener('abort', abort);
  }
}

function describe(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  if (cause && typeof cause === 'object' && 'code' in cause && typeof cause.code === 'string') return cause.code;
  return cause instanceof Error ? cause.message : String(cause);
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}
