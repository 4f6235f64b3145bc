import type { RejectReason } from './answers.js';
import type { DropEvent, DropReason, RecorderStats } from './recorder-types.js';

/** One record waiting to be sent: its JSON without the source, and who waits for its id. */
export interface QueuedRecord {
  readonly json: string;
  readonly onStored: ((id: string | null) => void) | undefined;
}

/** The batch endpoint takes 16 MiB; keep requests clear of it. */
export const MAX_BATCH_BYTES = 15 * 1024 * 1024;
/** What the source id and the separators add to a record in a batch, at most. */
const PER_RECORD_OVERHEAD = 60;

export interface RecordQueueOptions {
  readonly maxRecords: number;
  readonly maxBytes: number;
  readonly onDrop?: (event: DropEvent) => void;
}

/** What the queue counts of the records it holds and let go: its part of `stats()`. */
export type QueueCounts = Pick<
  RecorderStats,
  'queued' | 'queuedBytes' | 'dropped' | 'droppedBy' | 'rejected' | 'rejectedBy'
>;

export interface RecordQueue {
  readonly length: number;
  /** Adds a record, or drops it (`queue-full`, or `closed` once `closed` is said) and answers false. */
  offer(record: QueuedRecord, closed: boolean): boolean;
  /** The first `n` records, left in the queue. */
  peek(n: number): QueuedRecord[];
  /** The first `n` records, out of the queue. */
  take(n: number): QueuedRecord[];
  /** Puts records back at the head, in their order (the good ones of a batch with bad ones). */
  putBack(records: readonly QueuedRecord[]): void;
  /** How many records from the head fit one request of at most `cap` records and MAX_BATCH_BYTES. */
  batchLength(cap: number): number;
  /**
   * Gives records up, each one's `onStored` told `null`, counted by reason (and by the daemon's
   * answer, `why`, for `rejected`), and reported through `onDrop`.
   */
  drop(reason: DropReason, records: readonly QueuedRecord[], error?: Error, why?: RejectReason): void;
  counts(): QueueCounts;
}

/** Calls a caller's callback; what it throws must not break the queue. */
export function safely(fn: () => void): void {
  try {
    fn();
  } catch {
    // The caller's problem, not the recorder's.
  }
}

/**
 * The recorder's bounded queue and the bookkeeping of what it gave up: by count and by bytes of
 * JSON, so that a daemon that is down costs the application a known amount of memory at most.
 */
export function createRecordQueue(options: RecordQueueOptions): RecordQueue {
  const items: QueuedRecord[] = [];
  let bytes = 0;
  let dropped = 0;
  let rejected = 0;
  const droppedBy = { queueFull: 0, closed: 0 };
  const rejectedBy: Record<RejectReason, number> = {
    invalid: 0,
    unauthorized: 0,
    forbidden: 0,
    notFound: 0,
    serverError: 0,
  };

  const queue: RecordQueue = {
    get length() {
      return items.length;
    },
    offer(record, closed) {
      if (closed || items.length >= options.maxRecords || bytes + record.json.length > options.maxBytes) {
        queue.drop(closed ? 'closed' : 'queue-full', [record]);
        return false;
      }
      items.push(record);
      bytes += record.json.length;
      return true;
    },
    peek: (n) => items.slice(0, n),
    take(n) {
      const taken = items.splice(0, n);
      for (const record of taken) bytes -= record.json.length;
      return taken;
    },
    putBack(records) {
      items.unshift(...records);
      for (const record of records) bytes += record.json.length;
    },
    batchLength(cap) {
      let n = 0;
      let size = 2;
      while (n < Math.min(cap, items.length)) {
        const next = items[n];
        if (!next || (n > 0 && size + next.json.length + PER_RECORD_OVERHEAD > MAX_BATCH_BYTES)) break;
        size += next.json.length + PER_RECORD_OVERHEAD;
        n++;
      }
      return n;
    },
    drop(reason, records, error, why = 'invalid') {
      if (records.length === 0) return;
      if (reason === 'rejected') {
        rejected += records.length;
        rejectedBy[why] += records.length;
      } else {
        dropped += records.length;
        droppedBy[reason === 'closed' ? 'closed' : 'queueFull'] += records.length;
      }
      for (const record of records) if (record.onStored) safely(() => record.onStored?.(null));
      const total = dropped + rejected;
      if (options.onDrop)
        safely(() => options.onDrop?.({ reason, count: records.length, total, ...(error ? { error } : {}) }));
    },
    counts: () => ({
      queued: items.length,
      queuedBytes: bytes,
      dropped,
      droppedBy: { ...droppedBy },
      rejected,
      rejectedBy: { ...rejectedBy },
    }),
  };
  return queue;
}

/** The batch endpoint's body: the records as they were queued, each with the source's id first. */
export function batchBody(sourceId: string, records: readonly QueuedRecord[]): string {
  const prefix = `{"trafficSourceId":${JSON.stringify(sourceId)}`;
  return `[${records.map((record) => (record.json === '{}' ? `${prefix}}` : `${prefix},${record.json.slice(1)}`)).join(',')}]`;
}
