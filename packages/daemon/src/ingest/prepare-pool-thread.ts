import { workerData } from 'node:worker_threads';
// The thread checks every batch with the contract's schemas: built when it starts (§20.23).
import * as shared from '@tapline/shared';
import { type BatchResult, type BatchTask, prepareBatch } from './prepare.js';
import { createReclaimer } from '../http/reclaim.js';
import { createRedactor, type RedactOptions } from './redact.js';

/** What the pool hands every thread when it starts (Piscina passes its `workerData` through). */
export interface PrepareWorkerData {
  readonly redact: RedactOptions;
}

// eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- node types workerData as `any`; prepare-pool.ts passes a PrepareWorkerData (checked there with `satisfies`)
const redactor = createRedactor((workerData as PrepareWorkerData).redact);
/** The main thread set `--expose-gc` (http/reclaim.ts) before the pool started this thread. */
const reclaim = createReclaimer(0);
const RECLAIM_AFTER_BYTES = 1024 * 1024;

/**
 * The worker thread's entry (bundled to dist/prepare-worker.js beside taplined.js): Piscina calls
 * the default export with each task. It only prepares; the database stays with the event loop.
 * A task that throws would look like a dead thread to the pool, so it becomes a result instead.
 */
export default function prepare(task: BatchTask): BatchResult {
  try {
    // The last batches are garbage by now (their results were posted): once they add up to the
    // largest batch, or when this one is of 8 MiB or more, collect them before parsing it, so the
    // thread never holds more than one largest batch's garbage beside a batch, and none beside a
    // large one (issue 11; not after every batch: http/reclaim.ts says why).
    const bytes = task.body?.byteLength ?? 0;
    reclaim.due(bytes);
    const result = prepareBatch(task, redactor, shared);
    // Or soon, if no batch follows: the thread's memory goes back even before the thread ends.
    // Only after large bodies: the proxy's stream of small batches should not pay for a collection each.
    if (bytes >= RECLAIM_AFTER_BYTES) reclaim.soon(bytes);
    return result;
  } catch (error) {
    // A bug, not a bad body (those are results): the event loop logs it and answers a plain 500.
    return {
      ok: false,
      stage: 'body',
      error: { statusCode: 500, error: 'Internal Server Error', code: 'internal' },
      fault: error instanceof Error ? (error.stack ?? error.message) : String(error),
    };
  }
}
