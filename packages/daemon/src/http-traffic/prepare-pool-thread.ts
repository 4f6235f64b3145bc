import { workerData } from 'node:worker_threads';
import { type BatchResult, type BatchTask, prepareBatch } from './prepare.js';
import { createRedactor, type RedactOptions } from './redact.js';

/** What the pool hands every thread when it starts (Piscina passes its `workerData` through). */
export interface PrepareWorkerData {
  readonly redact: RedactOptions;
}

// eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- node types workerData as `any`; prepare-pool.ts passes a PrepareWorkerData (checked there with `satisfies`)
const redactor = createRedactor((workerData as PrepareWorkerData).redact);

/**
 * The worker thread's entry (bundled to dist/prepare-worker.js beside taplined.js): Piscina calls
 * the default export with each task. It only prepares; the database stays with the event loop.
 * A task that throws would look like a dead thread to the pool, so it becomes a result instead.
 */
export default function prepare(task: BatchTask): BatchResult {
  try {
    return prepareBatch(task, redactor);
  } catch (error) {
    // A bug, not a bad body (those are results): the event loop logs it and answers a plain 500.
    return { ok: false, stage: 'body', error: { statusCode: 500, error: 'Internal Server Error', code: 'internal' }, fault: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
}
