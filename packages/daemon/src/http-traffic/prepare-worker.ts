import { workerData } from 'node:worker_threads';
import { type BatchResult, type BatchTask, prepareBatch } from './prepare.js';
import { createRedactor, type RedactOptions } from './redact.js';

/** What the pool hands every thread when it starts (Piscina passes its `workerData` through). */
export interface PrepareWorkerData {
  readonly redact: RedactOptions;
}

const redactor = createRedactor((workerData as PrepareWorkerData).redact);

/**
 * The worker thread's entry (bundled to dist/prepare-worker.js beside taplined.js): Piscina calls
 * the default export with each task. It only prepares; the database stays with the event loop.
 */
export default function prepare(task: BatchTask): BatchResult {
  return prepareBatch(task, redactor);
}
