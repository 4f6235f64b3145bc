import { type ApiError, apiErrorOf } from '../errors.js';
import { isRecord } from '../json.js';
import { buildPath, CAPTURE_PATHS } from '../paths.js';
import type { CreateCoreLog } from '../schemas/core-log.js';
import { type Answer, badIndexes, postJson, type RefusalError, refusalOf, type RejectReason, rejectReasonOf, retryAfterMs, verdictOf } from './answers.js';
import type { DropReason, Recorder, RecorderOptions } from './recorder-types.js';
import { isRecordedMethod, type RecordBody } from './transaction.js';

export type { Refusal, RejectReason } from './answers.js';
export type * from './recorder-types.js';

interface Item {
  readonly json: string;
  readonly onStored: ((id: string | null) => void) | undefined;
}

/** The endpoint takes 16 MiB; keep requests clear of it. */
const MAX_BATCH_BYTES = 15 * 1024 * 1024;
const MAX_CORE_LOGS = 1000;
/** 5xx answers for the same head of the queue before it is split, and a lone record given up. */
const SERVER_ERRORS_BEFORE_SPLIT = 3;

/**
 * One batching, bounded, never-blocking queue of records to the batch endpoint. What it retries
 * and what it gives up: answers.ts (docs/decisions.md §10.6).
 */
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
  const droppedBy = { queueFull: 0, closed: 0 };
  const rejectedBy: Record<RejectReason, number> = { invalid: 0, unauthorized: 0, forbidden: 0, notFound: 0, serverError: 0 };
  let refusal: { status: number; message: string } | null = null;
  /** A refusal was reported and the daemon has stored nothing since: keep quiet. */
  let refusalReported = false;
  /** The wait the last answer asked for (Retry-After), for the next backoff step. */
  let askedWaitMs = 0;
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
  const dropped = (reason: DropReason, items: readonly Item[], error?: Error, why: RejectReason = 'invalid') => {
    if (items.length === 0) return;
    if (reason === 'rejected') {
      counts.rejected += items.length;
      rejectedBy[why] += items.length;
    } else {
      counts.dropped += items.length;
      droppedBy[reason === 'closed' ? 'closed' : 'queueFull'] += items.length;
    }
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

  /** How many records from the head of the queue the next request carries. */
  function batchLength(): number {
    let n = 0;
    let bytes = 2;
    while (n < Math.min(cap, queue.length)) {
      const next = queue[n];
      if (!next || (n > 0 && bytes + next.json.length + 60 > MAX_BATCH_BYTES)) break;
      bytes += next.json.length + 60;
      n++;
    }
    return n;
  }

  /** The daemon stored something: a later refusal is news again. */
  function accepted(): void {
    refusal = null;
    refusalReported = false;
  }

  /**
   * The token or the source is refused: what the request carried (`records`, or else the first
   * core log) is given up, never retried, and the refusal is reported once (`onRefused`).
   */
  function refuse({ status, message, error }: RefusalError, items: readonly Item[] | 'core-log'): void {
    if (items === 'core-log') {
      logs.shift();
      counts.coreLogsDropped++;
    } else dropped('rejected', items, error, rejectReasonOf(status));
    refusal = { status, message };
    if (refusalReported) return;
    refusalReported = true;
    safely(() => options.onRefused?.({ status, message, count: items === 'core-log' ? 0 : items.length }));
  }

  /** An answer to retry later (503, 429, ...): remembers the wait it asks for, and throws. */
  function later(answer: Answer, error: ApiError): never {
    askedWaitMs = retryAfterMs(answer.retryAfter) ?? 0;
    throw error;
  }

  async function sendBatch(id: string): Promise<void> {
    const n = batchLength();
    const batch = queue.slice(0, n);
    const prefix = `{"trafficSourceId":${JSON.stringify(id)}`;
    const body = `[${batch.map((item) => (item.json === '{}' ? `${prefix}}` : `${prefix},${item.json.slice(1)}`)).join(',')}]`;
    const response = await postJson(client, buildPath(CAPTURE_PATHS.composeBatch, { trafficSourceId: id }), body, requestTimeoutMs);
    const { text } = response;
    if (response.status === 201) {
      accepted();
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
    const verdict = verdictOf(response.status);
    if (verdict === 'later') later(response, error);
    if (verdict === 'server-error') {
      if (++serverErrors < SERVER_ERRORS_BEFORE_SPLIT) throw error;
      serverErrors = 0;
      if (n > 1) cap = Math.ceil(n / 2);
      else dropped('rejected', take(1), error, 'serverError');
      throw error;
    }
    if (verdict === 'too-large' && n > 1) {
      cap = Math.ceil(n / 2);
      return;
    }
    if (verdict === 'refused') {
      // A source deleted and re-created under the same name gets a new id: look it up again.
      if (response.status === 404 && typeof options.sourceId === 'function') sourceId = undefined;
      return refuse({ status: response.status, message: error.message, error }, take(n));
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
  }

  async function sendCoreLog(id: string): Promise<void> {
    const log = logs[0];
    if (!log) return;
    const response = await postJson(client, buildPath(CAPTURE_PATHS.createCoreLog, { trafficSourceId: id }), JSON.stringify(log), requestTimeoutMs);
    if (response.status >= 200 && response.status < 300) {
      accepted();
      counts.coreLogsSent++;
      logs.shift();
      return;
    }
    const error = apiErrorOf(response.status, response.text);
    const verdict = verdictOf(response.status);
    if (verdict === 'later') later(response, error);
    if (verdict === 'server-error') throw error;
    if (verdict === 'refused') return refuse({ status: response.status, message: error.message, error }, 'core-log');
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
        let id: string;
        try {
          id = await resolveSource();
        } catch (error) {
          const refused = refusalOf(error);
          if (!refused) throw error;
          // What the request would have carried: records, or else the core log.
          refuse(refused, queue.length > 0 ? take(batchLength()) : 'core-log');
          continue;
        }
        if (queue.length > 0) await sendBatch(id);
        else await sendCoreLog(id);
        failedInARow = 0;
        retryAt = 0;
      }
    } catch (caught) {
      const error = caught instanceof Error ? caught : new Error(String(caught));
      counts.failures++;
      failedInARow++;
      const backoff = Math.min(maxMs, initialMs * 2 ** (failedInARow - 1)) * (0.8 + Math.random() * 0.4);
      // A Retry-After is honoured (up to its cap) when it asks for longer than the backoff.
      retryAt = Date.now() + Math.max(backoff, askedWaitMs);
      askedWaitMs = 0;
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
        dropped('rejected', [{ json: '', onStored }], undefined, 'invalid');
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
    stats: () => ({ queued: queue.length, ...counts, droppedBy: { ...droppedBy }, rejectedBy: { ...rejectedBy }, refusal }),
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
