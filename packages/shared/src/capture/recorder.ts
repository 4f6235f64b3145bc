import { type ApiError, apiErrorOf } from '../errors.js';
import { isRecord } from '../json.js';
import { buildPath, CAPTURE_PATHS } from '../paths.js';
import type { CreateCoreLog } from '../schemas/core-log.js';
import {
  type Answer,
  badIndexes,
  postJson,
  type RefusalError,
  refusalOf,
  rejectReasonOf,
  retryAfterMs,
  verdictOf,
} from './answers.js';
import { batchBody, createRecordQueue, type QueuedRecord, safely } from './record-queue.js';
import type { PostJson, Recorder, RecorderOptions } from './recorder-types.js';
import { isRecordedMethod, type RecordBody } from './transaction.js';

export type { Refusal, RejectReason } from './answers.js';
export type * from './recorder-types.js';

const MAX_CORE_LOGS = 1000;
/** 5xx answers for the same head of the queue before it is split, and a lone record given up. */
const SERVER_ERRORS_BEFORE_SPLIT = 3;

/**
 * One batching, bounded, never-blocking queue of records to the batch endpoint. The queue and the
 * bookkeeping of what it gives up are record-queue.ts; what it retries and what it gives up is
 * answers.ts (docs/decisions.md §10.6); this is the sending: batches, backoff, refusals, flushes.
 */
export function createRecorder(options: RecorderOptions): Recorder {
  const { client } = options;
  const post: PostJson = options.post ?? ((path, body, timeoutMs) => postJson(client, path, body, timeoutMs));
  const maxQueue = options.maxQueue ?? 10_000;
  const maxQueueBytes = options.maxQueueBytes ?? 64 * 1024 * 1024;
  const batchSize = Math.min(1000, Math.max(1, options.batchSize ?? 500));
  const flushIntervalMs = options.flushIntervalMs ?? 200;
  const requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
  const initialMs = options.retry?.initialMs ?? 250;
  const maxMs = options.retry?.maxMs ?? 5_000;

  const queue = createRecordQueue({
    maxRecords: maxQueue,
    maxBytes: maxQueueBytes,
    ...(options.onDrop ? { onDrop: options.onDrop } : {}),
  });
  const logs: CreateCoreLog[] = [];
  const counts = { sent: 0, skipped: 0, failures: 0, coreLogsSent: 0, coreLogsDropped: 0 };
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
  /** Records queued so far: what a request's answer finds queued beyond those arrived since it began is older. */
  let arrivals = 0;
  const idle: (() => void)[] = [];

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

  /** The daemon stored something: a later refusal is news again. */
  function accepted(): void {
    refusal = null;
    refusalReported = false;
  }

  /**
   * The token or the source is refused: what the request carried (`records`, or else the first
   * core log) is given up, never retried, and the refusal is reported once (`onRefused`).
   */
  function refuse({ status, message, error }: RefusalError, items: readonly QueuedRecord[] | 'core-log'): void {
    if (items === 'core-log') {
      logs.shift();
      counts.coreLogsDropped++;
    } else queue.drop('rejected', items, error, rejectReasonOf(status));
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
    const n = queue.batchLength(cap);
    const response = await post(
      buildPath(CAPTURE_PATHS.composeBatch, { trafficSourceId: id }),
      batchBody(id, queue.peek(n)),
      requestTimeoutMs,
    );
    const { text } = response;
    if (response.status === 201) {
      accepted();
      const answer: unknown = JSON.parse(text);
      // The daemon's 201 lists the new ids in the order of the batch.
      const ids: unknown[] = isRecord(answer) && Array.isArray(answer.ids) ? answer.ids : [];
      queue.take(n).forEach((item, i) => {
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
      else queue.drop('rejected', queue.take(1), error, 'serverError');
      throw error;
    }
    if (verdict === 'too-large' && n > 1) {
      cap = Math.ceil(n / 2);
      return;
    }
    if (verdict === 'refused') {
      // A source deleted and re-created under the same name gets a new id: look it up again.
      if (response.status === 404 && typeof options.sourceId === 'function') sourceId = undefined;
      return refuse({ status: response.status, message: error.message, error }, queue.take(n));
    }
    const bad = response.status === 400 ? badIndexes(error, n) : new Set<number>();
    if (bad.size > 0) {
      // Keep the good ones at the head of the queue, in order, for the next request.
      const items = queue.take(n);
      queue.drop(
        'rejected',
        items.filter((_, i) => bad.has(i)),
        error,
      );
      queue.putBack(items.filter((_, i) => !bad.has(i)));
    } else {
      queue.drop('rejected', queue.take(n), error);
    }
  }

  async function sendCoreLog(id: string): Promise<void> {
    const log = logs[0];
    if (!log) return;
    const response = await post(
      buildPath(CAPTURE_PATHS.createCoreLog, { trafficSourceId: id }),
      JSON.stringify(log),
      requestTimeoutMs,
    );
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
    /** When a part batch left over from the last request may go (its records' 200 ms are up by then). */
    let nextAt = 0;
    try {
      while (queue.length > 0 || logs.length > 0) {
        let id: string;
        try {
          id = await resolveSource();
        } catch (error) {
          const refused = refusalOf(error);
          if (!refused) throw error;
          // What the request would have carried: records, or else the core log.
          refuse(refused, queue.length > 0 ? queue.take(queue.batchLength(cap)) : 'core-log');
          continue;
        }
        const startedAt = Date.now();
        const arrivedBefore = arrivals;
        if (queue.length > 0) await sendBatch(id);
        else await sendCoreLog(id);
        failedInARow = 0;
        retryAt = 0;
        // What arrived while the request was out waits for others, as a first record does: sent
        // at once, a trickle of records made a request each (docs/decisions.md §20.21).
        if (partBatchMayWait(arrivals - arrivedBefore)) {
          nextAt = startedAt + flushIntervalMs;
          break;
        }
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
      if (queue.length > 0 || logs.length > 0) schedule(Math.max(0, nextAt - Date.now()));
      else idle.splice(0).forEach((resolve) => resolve());
    }
  }

  /**
   * Only records are queued, fewer than one full request, all of them arrived while the request
   * was out (`arrivedSince` records did: none left from a backlog or put back after a 400, whose
   * interval may be up already), and nobody awaits a flush.
   */
  function partBatchMayWait(arrivedSince: number): boolean {
    return (
      flushing === 0 &&
      queue.length <= arrivedSince &&
      logs.length === 0 &&
      queue.length > 0 &&
      queue.batchLength(cap) === queue.length &&
      queue.length < cap
    );
  }

  function enqueue(record: QueuedRecord): boolean {
    if (!queue.offer(record, closed)) return false;
    arrivals++;
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
        queue.drop('rejected', [{ json: '', onStored }], undefined, 'invalid');
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
    stats: () => {
      const { queued, queuedBytes, dropped, rejected, droppedBy, rejectedBy } = queue.counts();
      return {
        queued,
        queuedBytes,
        sent: counts.sent,
        dropped,
        rejected,
        skipped: counts.skipped,
        failures: counts.failures,
        coreLogsSent: counts.coreLogsSent,
        coreLogsDropped: counts.coreLogsDropped,
        droppedBy,
        rejectedBy,
        refusal,
      };
    },
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
