import type { TaplineClient } from '../client.js';
import type { CreateCoreLog } from '../schemas/core-log.js';
import type { Answer, Refusal, RejectReason } from './answers.js';
import type { RecordBody } from './transaction.js';

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

/** POSTs a JSON body to the daemon and reads the whole answer; no answer is an UnreachableError. */
export type PostJson = (path: string, body: string, timeoutMs: number) => Promise<Answer>;

export interface RecorderOptions {
  readonly client: TaplineClient;
  /**
   * How batches and core logs are sent: by default through `client`, on this thread. `tapline
   * proxy` sends them from a worker thread, off the event loop that forwards (decisions §20.36).
   */
  readonly post?: PostJson;
  /**
   * The source's id, or a resolver (`() => resolveSourceId(client, 'demo')`), retried like a send
   * while the daemon cannot answer; a refusal (401, 403, no source of that name) gives up a batch.
   */
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
  /**
   * Each failed attempt that will be retried (daemon down, slow, unavailable, 5xx); at most one
   * call per backoff step. Refusals and invalid records are given up, not retried: see
   * `onRefused` and `onDrop`.
   */
  readonly onError?: (error: Error) => void;
  /**
   * The daemon refused the token or the source (401, 403, 404, or no source of that name): the
   * batch is given up, never retried. Called on the first refusal, and on the first one after
   * the daemon stored records again, not on every batch it refuses.
   */
  readonly onRefused?: (refusal: Refusal) => void;
}

export interface RecorderStats {
  readonly queued: number;
  readonly queuedBytes: number;
  /** Records the daemon stored. */
  readonly sent: number;
  /** Records dropped on this side: queue full, or recorded after `close()`. */
  readonly dropped: number;
  readonly droppedBy: { readonly queueFull: number; readonly closed: number };
  /** Records given up because of the daemon's answer (invalid, or the token or source refused). */
  readonly rejected: number;
  /**
   * `rejected` by the answer: `invalid` (400, 413 for one record, other 4xx), `unauthorized` (401),
   * `forbidden` (403), `notFound` (404, or no source of that name), `serverError` (one record
   * that kept failing with a 500).
   */
  readonly rejectedBy: Readonly<Record<RejectReason, number>>;
  /** The latest refusal of the token or source, until the daemon stores records again. */
  readonly refusal: { readonly status: number; readonly message: string } | null;
  /** Transactions with a method the spec does not record (HEAD, OPTIONS, ...). */
  readonly skipped: number;
  /** Failed attempts, each followed by a retry (503, network errors, ...). */
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
