import { Worker } from 'node:worker_threads';
import type { CheckpointResult, CheckpointWorkerData } from './checkpoint-thread.js';
import { nativeBinding } from './native-addon.js';

/**
 * How long after a commit the thread checkpoints, at the soonest: the commits of that time are
 * copied together, so a daemon that keeps writing runs at most one checkpoint (two syncs) a
 * second. At 100 ms, ten a second under the proxy's 200 requests/s added to its p99 (2.14 against
 * 1.86 ms without the thread) and started the thread inside a cold start; a second of sustained
 * ingest writes some 10 MB of WAL, a quarter of what the automatic checkpoint waits for.
 */
export const CHECKPOINT_DELAY_MS = 1_000;

/** The thread's young generation, both semi-spaces (V8's smallest). */
const YOUNG_GENERATION_MB = 2;

export interface Checkpointer {
  /** A transaction committed: the thread checkpoints soon, unless a checkpoint is already due. */
  committed(): void;
  /** The last checkpoint's counts (for tests), or undefined before the first. */
  readonly last: CheckpointResult | undefined;
  /** Ends the thread (and its connection) before the event loop's connection closes. */
  close(): Promise<void>;
}

/**
 * Checkpoints the WAL of `file` from a worker thread with its own connection (db/checkpoint-thread.ts,
 * the bundle `worker`). SQLite's automatic checkpoint ran on the committing connection, in the
 * event loop: every 10,000 pages, it copied some 40 MB into the database file and synced
 * both, 45 to 100 ms during which no request was read or answered (docs/performance.md, "Single
 * composes: the tail"). The thread starts with the first commit; the event loop's connection keeps
 * its automatic checkpoint, which now finds the pages copied and only completes the last few, so
 * that the WAL starts over. A thread that fails is not restarted: `onFailure` hears why, once,
 * and that automatic checkpoint does the whole work again, as before.
 */
export function createCheckpointer(
  file: string,
  worker: URL,
  onFailure: (error: unknown) => void = () => undefined,
): Checkpointer {
  let thread: Worker | undefined;
  let failed = false;
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let dirty = false;
  let last: CheckpointResult | undefined;

  function start(): Worker {
    const started = new Worker(worker, {
      workerData: { file, nativeBinding: nativeBinding() } satisfies CheckpointWorkerData,
      // It allocates next to nothing after its start; V8 would let its young generation grow to 16 MiB.
      resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
    });
    started.unref();
    started.on('message', (result: CheckpointResult) => {
      last = result;
      running = false;
      if (dirty) schedule();
    });
    // An error (the thread could not start, or its checkpoint threw) is followed by 'exit'; a
    // thread may also end without one. Either way it is gone: said once, and not waited for again.
    const gone = (error: unknown): void => {
      if (thread !== started) return; // said already, or closed by `close`
      failed = true;
      running = false;
      thread = undefined;
      onFailure(error);
    };
    started.on('error', gone);
    started.on('exit', (code) => gone(new Error(`the checkpoint thread ended (exit code ${code})`)));
    return started;
  }

  function checkpoint(): void {
    timer = undefined;
    if (failed) return;
    thread ??= start();
    dirty = false;
    running = true;
    thread.postMessage('checkpoint');
  }

  function schedule(): void {
    if (timer || running || failed) return;
    timer = setTimeout(checkpoint, CHECKPOINT_DELAY_MS);
    timer.unref();
  }

  return {
    committed() {
      dirty = true;
      schedule();
    },
    get last() {
      return last;
    },
    async close() {
      clearTimeout(timer);
      timer = undefined;
      failed = true;
      const ending = thread;
      thread = undefined;
      if (!ending) return;
      const exited = new Promise((resolve) => ending.once('exit', resolve));
      ending.postMessage('close');
      await exited;
    },
  };
}
