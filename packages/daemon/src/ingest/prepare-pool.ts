import { availableParallelism } from 'node:os';
import type { Logger } from 'pino';
import type { Piscina } from 'piscina';
import { type BatchResult, type BatchTask, prepareBatch } from './prepare.js';
import type { PrepareWorkerData } from './prepare-pool-thread.js';
import { createRedactor, type RedactOptions } from './redact.js';
import { schemas } from '../http/schemas.js';

/** Parses, validates, redacts and serializes batch bodies; see prepareBatch. */
export interface BatchPreparer {
  prepare(task: BatchTask): Promise<BatchResult>;
  /** How many batches a worker thread prepared (the rest ran on the event loop). */
  readonly offloaded: number;
  close(): Promise<void>;
}

export interface BatchWorker {
  /** The bundled thread entry, dist/prepare-worker.js (built from prepare-pool-thread.ts). */
  readonly file: URL;
  /** Smaller bodies are prepared on the event loop (default OFFLOAD_BYTES; tests pass 0). */
  readonly minBytes?: number;
}

/**
 * Below this body size a batch is prepared on the event loop: handing it to a thread costs more
 * than it saves, and the proxy's and the middleware's small batches stay as quick as before.
 */
export const OFFLOAD_BYTES = 64 * 1024;
/**
 * The worker's young generation in MB (see startPool): room for a batch of 1,000 records' parse,
 * redaction and serialized values (a 1.5 MB body), which then mostly die young. At 4 MB the
 * thread collected ten times a batch, each time copying the batch's still-live tree, and its old
 * generation filled so that a full collection came every second batch: V8's helper threads' CPU
 * a batch of 1,000 (decisions §20.25).
 */
const WORKER_YOUNG_MB = 32;
/** A thread with nothing to do ends after this; the next large batch starts one again (tens of ms). */
const IDLE_THREAD_MS = 2_000;

/**
 * Prepares large batches in a worker thread, so the event loop spends a batch's time on SQLite
 * and the next batch is parsed and validated meanwhile, and a 16 MiB body does not hold up every
 * other request while it is parsed (docs/performance.md#ingest-and-the-http-path).
 * Without a worker (the in-process tests run
 * TypeScript, which a worker thread cannot load) everything is prepared on the event loop; the
 * same function runs in both places, and the batch tests run against both. If the thread cannot
 * run, batches fall back to the event loop, with one error logged, rather than failing.
 */
export function createBatchPreparer(worker: BatchWorker | null, redact: RedactOptions, logger: Logger): BatchPreparer {
  const redactor = createRedactor(redact);
  let starting: Promise<Piscina<BatchTask, BatchResult>> | undefined;
  let broken = worker === null;
  let closing = false;
  let offloaded = 0;
  const minBytes = worker?.minBytes ?? OFFLOAD_BYTES;

  /** A thread that will not start or died: log once, stop the pool, prepare here from now on. */
  function giveUp(error: unknown): void {
    if (broken) return;
    broken = true;
    logger.error({ err: error }, 'the batch worker thread failed; preparing batches on the event loop from now on');
    void starting?.then(
      (pool) => pool.destroy(),
      () => undefined,
    );
  }

  /**
   * Piscina is loaded here, on the first large batch, not with the daemon: loading it was 7 to 9 ms
   * of every start's CPU, and most daemons never get a batch that needs it (issue 30's cold start).
   */
  async function startPool(file: URL): Promise<Piscina<BatchTask, BatchResult>> {
    const { Piscina } = await import('./piscina.js');
    const threads = Math.max(1, Math.min(2, availableParallelism() - 1));
    // No thread is kept idle: a thread's heap grows to what a 16 MiB batch needs and is given back
    // only when the thread ends, so an idle one held that memory for ever (issue 11).
    const started = new Piscina<BatchTask, BatchResult>({
      filename: file.href,
      minThreads: 0,
      maxThreads: threads,
      idleTimeout: IDLE_THREAD_MS,
      // A bounded young generation: V8's default grows it to tens of MB per thread.
      resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_MB },
      workerData: { redact } satisfies PrepareWorkerData,
    });
    // A replacement thread that fails to start has no task to reject; Piscina reports it here,
    // and an 'error' event without a listener would end the process.
    started.on('error', giveUp);
    logger.info({ threads }, 'started the batch worker thread');
    return started;
  }

  return {
    async prepare(task) {
      if (broken || !worker || task.body === null || task.body.byteLength < minBytes)
        return prepareBatch(task, redactor, await schemas());
      // Started on the first large batch: a daemon that never gets one never starts a thread.
      // Two batches that come together wait for the same start.
      starting ??= startPool(worker.file);
      const body = task.body;
      // The body is moved to the thread, not copied: the event loop holds none of it meanwhile.
      // Only a buffer that owns its whole memory moves; a pooled slice would take others' bytes along.
      const size = body.byteLength;
      const movable = body.byteOffset === 0 && size === body.buffer.byteLength && body.buffer instanceof ArrayBuffer;
      try {
        const result = await (await starting).run(task, movable ? { transferList: [body.buffer] } : {});
        offloaded += 1;
        return result;
      } catch (error) {
        if (closing) throw error;
        giveUp(error);
        // A body that reached the thread is gone with it (detached): this batch fails (500), the
        // next ones run here. One the pool never sent is still here, and is prepared here.
        if (size > 0 && body.byteLength === 0) throw error;
        return prepareBatch(task, redactor, await schemas());
      }
    },
    get offloaded() {
      return offloaded;
    },
    async close() {
      closing = true;
      // A pool still starting is waited for, then stopped; one that failed to start has nothing to stop.
      const started = await starting?.catch(() => undefined);
      await started?.destroy();
    },
  };
}
