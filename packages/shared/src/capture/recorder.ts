import type { TaplineClient } from '../client.js';
import { type ApiError, apiErrorOf } from '../errors.js';
import { isRecord } from '../json.js';
import { buildPath, CAPTURE_PATHS } from '../paths.js';
import type { CreateCoreLog } from '../schemas/core-log.js';
import { isRecordedMethod, type RecordBody } from './transaction.js';

export type DropReason = 'queue-full' | 'rejected' | 'closed';

export interface DropEvent {
  readonly reason: DropReason;
  /** Records dropped by this event. */
  readonly count: number;
  /** Records dropped or rejected so far. */
  readonly total: number;
  /** The daemon's answer, for `rejected`. */
  readonly error?: Error;
}

export interface RecorderOptions {
  readonly client: TaplineClient;
  /** The source's id, or a resolver (`() => resolveSourceId(client, 'demo')`) retried like a send until it answers. */
  readonly sourceId: string | (() => Promise<string>);
  /** Records held while the daemon is slow or down; past it new records are dropped. Default 10,000. */
  readonly maxQueue?: number;
  /** The same bound in bytes of JSON. Default 64 MiB. */
  readonly maxQueueBytes?: number;
  /** Records per request, at most 1,000 (the endpoint's limit). Default 500. */
  readonly batchSize?: number;
  /** How long a record may wait for others to share its request. Default 200 ms. */
  readonly flushIntervalMs?: number;
  readonly requestTimeoutMs?: number;
  /** Backoff between failed attempts: doubling from `initialMs` to `maxMs`, with jitter. */
  readonly retry?: { readonly initialMs?: number; readonly maxMs?: number };
  readonly onDrop?: (event: DropEvent) => void;
  /** Each failed attempt (daemon down, slow, refusing); at most one call per backoff step. */
  readonly onError?: (error: Error) => void;
}

export interface RecorderStats {
  readonly queued: number;
  readonly queuedBytes: number;
  /** Records the daemon stored. */
  readonly sent: number;
  /** Records dropped on this side: queue full, or recorded after `close()`. */
  readonly dropped: number;
  /** Records the daemon refused (invalid, or the token may not write to the source). */
  readonly rejected: number;
  /** Transactions with a method the spec does not record (HEAD, OPTIONS, ...). */
  readonly skipped: number;
  /** Failed attempts, each followed by a retry. */
  readonly failures: number;
  readonly coreLogsSent: number;
  readonly coreLogsDropped: number;
}

export interface Recorder {
  /**
   * Queues one record and returns at once; never throws, never waits for the daemon. `onStored`
   * gets the stored entry's id, or `null` once the record is dropped or rejected. Returns whether
   * the record was queued; a method outside the spec's five counts as skipped.
   */
  record(body: RecordBody, onStored?: (id: string | null) => void): boolean;
  /** Queues a core log (POST /core-log), sent after the records queued before it. */
  coreLog(log: CreateCoreLog): void;
  stats(): RecorderStats;
  /** Sends what is queued now; resolves `true` once sent, `false` if `timeoutMs` ran out first. */
  flush(timeoutMs?: number): Promise<boolean>;
  /** Stops taking records, flushes, stops timers. */
  close(timeoutMs?: number): Promise<boolean>;
}

interface Item {
  readonly json: string;
  readonly onStored: ((id: string | null) => void) | undefined;
}

/** The endpoint takes 16 MiB; keep requests clear of it. */
const MAX_BATCH_BYTES = 15 * 1024 * 1024;
const MAX_CORE_LOGS = 1000;
/** 5xx answers for the same head of the queue before it is split, and a lone record given up. */
const SERVER_ERRORS_BEFORE_SPLIT = 3;

/** A 400 names bad items as `3.method`; these are the indexes. */
const badIndexes = (error: ApiError, n: number) =>
  new Set(
    (error.body.issues ?? [])
      .map((issue) => Number(/^(\d+)(?:\.|$)/.exec(issue.path)?.[1] ?? Number.NaN))
      .filter((i) => Number.isInteger(i) && i < n),
  );

/** One batching, bounded, never-blocking queue of records to the batch endpoint. */
export function createRecorder(options: RecorderOptions): Recorder {
  const { client } = options;
  const maxQueue = options.maxQueue ?? 10_000;
  const maxQueueBytes = options.maxQueueBytes ?? 64 * 1024 * 1024;
  const batchSize = Math.min(1000, Math.max(1, options.batchSize ?? 500));
  const flushIntervalMs = options.flushIntervalMs ?? 200;
  const requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
  const initialMs = options.retry?.initialMs ?? 250;
  const maxMs = options.retry?.maxMs ?? 5_000;

  const queue: Item[] = [];
  const logs: CreateCoreLog[] = [];
  const counts = { queuedBytes: 0, sent: 0, dropped: 0, rejected: 0, skipped: 0, failures: 0, coreLogsSent: 0, coreLogsDropped: 0 };
  let sourceId = typeof options.sourceId === 'string' ? options.sourceId : undefined;
  let closed = false;
  let running = false;
  let timer: NodeJS.Timeout | undefined;
  let timerDue = 0;
  let retryAt = 0;
  let failedInARow = 0;
  let serverErrors = 0;
  /** Shrinks after a 413 or repeated 5xx, so a bad batch is split until the culprit stands alone. */
  let cap = batchSize;
  let flushing = 0;
  const idle: (() => void)[] = [];

  const safely = (fn: () => void) => {
    try {
      fn();
    } catch {
      // A caller's callback must not break the queue.
    }
  };
  const dropped = (reason: DropReason, items: readonly Item[], error?: Error) => {
    if (items.length === 0) return;
    if (reason === 'rejected') counts.rejected += items.length;
    else counts.dropped += items.length;
    for (const item of items) if (item.onStored) safely(() => item.onStored?.(null));
    const total = counts.dropped + counts.rejected;
    if (options.onDrop) safely(() => options.onDrop?.({ reason, count: items.length, total, ...(error ? { error } : {}) }));
  };
  const take = (n: number) => {
    const items = queue.splice(0, n);
    for (const item of items) counts.queuedBytes -= item.json.length;
    return items;
  };

  function schedule(delay: number): void {
    if (running) return;
    const due = Math.max(Date.now() + delay, retryAt);
    if (timer && timerDue <= due) return;
    clearTimeout(timer);
    timerDue = due;
    timer = setTimeout(() => {
      timer = undefined;
      void pump();
    }, due - Date.now());
    // Recording must never keep an application alive, except while someone awaits a flush.
    if (flushing === 0) timer.unref();
  }

  async function resolveSource(): Promise<string> {
    if (sourceId) return sourceId;
    if (typeof options.sourceId === 'string') return options.sourceId;
    sourceId = await options.sourceId();
    return sourceId;
  }

  async function sendBatch(id: string): Promise<void> {
    let n = 0;
    let bytes = 2;
    while (n < Math.min(cap, queue.length)) {
      const next = queue[n];
      if (!next || (n > 0 && bytes + next.json.length + 60 > MAX_BATCH_BYTES)) break;
      bytes += next.json.length + 60;
      n++;
    }
    const batch = queue.slice(0, n);
    const prefix = `{"trafficSourceId":${JSON.stringify(id)}`;
    const body = `[${batch.map((item) => (item.json === '{}' ? `${prefix}}` : `${prefix},${item.json.slice(1)}`)).join(',')}]`;
    const response = await client.raw(buildPath(CAPTURE_PATHS.composeBatch, { trafficSourceId: id }), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      signal: AbortSignal.timeout(requestTimeoutMs),
    });
    const text = await response.text();
    if (response.status === 201) {
      const answer: unknown = JSON.parse(text);
      // The daemon's 201 lists the new ids in the order of the batch.
      const ids: unknown[] = isRecord(answer) && Array.isArray(answer.ids) ? answer.ids : [];
      take(n).forEach((item, i) => {
        const id = ids[i];
        if (item.onStored) safely(() => item.onStored?.(typeof id === 'string' ? id : null));
      });
      counts.sent += n;
      serverErrors = 0;
      cap = batchSize;
      return;
    }
    const error = apiErrorOf(response.status, text);
    if (response.status >= 500 || response.status === 429 || response.status === 408) {
      if (++serverErrors < SERVER_ERRORS_BEFORE_SPLIT) throw error;
      serverErrors = 0;
      if (n > 1) cap = Math.ceil(n / 2);
      else dropped('rejected', take(1), error);
      throw error;
    }
    if (response.status === 413 && n > 1) {
      cap = Math.ceil(n / 2);
      return;
    }
    const bad = response.status === 400 ? badIndexes(error, n) : new Set<number>();
    if (bad.size > 0) {
      // Keep the good ones at the head of the queue, in order, for the next request.
      const items = take(n);
      dropped('rejected', items.filter((_, i) => bad.has(i)), error);
      const good = items.filter((_, i) => !bad.has(i));
      queue.unshift(...good);
      for (const item of good) counts.queuedBytes += item.json.length;
    } else {
      dropped('rejected', take(n), error);
    }
    // A source deleted and re-created under the same name gets a new id: look it up again.
    if (response.status === 404 && typeof options.sourceId === 'function') sourceId = undefined;
    if (response.status !== 400) safely(() => options.onError?.(error));
  }

  async function sendCoreLog(id: string): Promise<void> {
    const log = logs[0];
    if (!log) return;
    const response = await client.raw(buildPath(CAPTURE_PATHS.createCoreLog, { trafficSourceId: id }), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(log),
      signal: AbortSignal.timeout(requestTimeoutMs),
    });
    const text = await response.text();
    if (response.ok) {
      counts.coreLogsSent++;
      logs.shift();
      return;
    }
    if (response.status >= 500 || response.status === 429) throw apiErrorOf(response.status, text);
    logs.shift();
    // The linked entry may have been refused; the error itself still matters more than the link.
    if (response.status === 400 && log.httpTrafficId) logs.unshift({ ...log, httpTrafficId: null });
    else counts.coreLogsDropped++;
  }

  async function pump(): Promise<void> {
    if (running) return;
    running = true;
    try {
      while (queue.length > 0 || logs.length > 0) {
        const id = await resolveSource();
        if (queue.length > 0) await sendBatch(id);
        else await sendCoreLog(id);
        failedInARow = 0;
        retryAt = 0;
      }
    } catch (caught) {
      const error = caught instanceof Error ? caught : new Error(String(caught));
      counts.failures++;
      failedInARow++;
      const backoff = Math.min(maxMs, initialMs * 2 ** (failedInARow - 1));
      retryAt = Date.now() + backoff * (0.8 + Math.random() * 0.4);
      safely(() => options.onError?.(error));
    } finally {
      running = false;
      if (queue.length > 0 || logs.length > 0) schedule(0);
      else idle.splice(0).forEach((resolve) => resolve());
    }
  }

  function enqueue(item: Item): boolean {
    if (closed || queue.length >= maxQueue || counts.queuedBytes + item.json.length > maxQueueBytes) {
      dropped(closed ? 'closed' : 'queue-full', [item]);
      return false;
    }
    queue.push(item);
    counts.queuedBytes += item.json.length;
    schedule(queue.length >= batchSize ? 0 : flushIntervalMs);
    return true;
  }

  async function flush(timeoutMs = 5_000): Promise<boolean> {
    if (queue.length === 0 && logs.length === 0 && !running) return true;
    flushing++;
    retryAt = 0;
    clearTimeout(timer);
    timer = undefined;
    schedule(0);
    let expire: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        new Promise<boolean>((resolve) => idle.push(() => resolve(true))),
        new Promise<boolean>((resolve) => (expire = setTimeout(() => resolve(false), timeoutMs))),
      ]);
    } finally {
      clearTimeout(expire);
      flushing--;
    }
  }

  return {
    record(body, onStored) {
      try {
        if (!isRecordedMethod(body.method)) {
          counts.skipped++;
          return false;
        }
        // A JavaScript caller may still pass the source's id; the recorder's own is the one sent.
        const { trafficSourceId: _ignored, ...rest }: RecordBody & { trafficSourceId?: unknown } = body;
        return enqueue({ json: JSON.stringify(rest), onStored });
      } catch {
        dropped('rejected', [{ json: '', onStored }]);
        return false;
      }
    },
    coreLog(log) {
      if (closed || logs.length >= MAX_CORE_LOGS) {
        counts.coreLogsDropped++;
        return;
      }
      logs.push(log);
      schedule(0);
    },
    stats: () => ({ queued: queue.length, ...counts }),
    flush,
    async close(timeoutMs) {
      closed = true;
      const done = await flush(timeoutMs);
      clearTimeout(timer);
      timer = undefined;
      return done;
    },
  };
}
