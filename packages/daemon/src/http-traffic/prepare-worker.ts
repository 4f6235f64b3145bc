import { type BatchResult, type BatchTask, prepareBatch } from './prepare.js';

/**
 * The worker thread's entry (bundled to dist/prepare-worker.js beside taplined.js): Piscina calls
 * the default export with each task. It only prepares; the database stays with the event loop.
 */
export default function prepare(task: BatchTask): BatchResult {
  return prepareBatch(task);
}
