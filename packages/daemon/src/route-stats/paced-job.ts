import type { Logger } from 'pino';

/** A background job of batches (route-stats/backfill.ts, route-stats/reassign.ts). */
export interface PacedJob {
  start(): void;
  /** Every batch until none is left (tests, and the start of a daemon that is not started). */
  runNow(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Batch after batch until `step` finds nothing left, resting twice as long as each batch worked
 * (as the pruner does, retention/pace.ts), so ingest keeps most of the loop. A second `runNow`
 * while one runs joins it, and makes it look once more at the end. `step` answers how many items it looked at; 0 ends the run.
 */
export function createPacedJob(
  deps: { readonly logger: Logger },
  job: { readonly step: () => Promise<number>; readonly done: string; readonly stopped: string },
): PacedJob {
  const stopping = new AbortController();
  let running: Promise<number> | undefined;
  /** Asked for while a run was going: its last look may have come before the work it was asked for. */
  let again = false;

  async function run(): Promise<number> {
    let total = 0;
    do {
      again = false;
      while (!stopping.signal.aborted) {
        const started = performance.now();
        const done = await job.step();
        total += done;
        if (done === 0) break;
        const held = performance.now() - started;
        await new Promise((resolve) => setTimeout(resolve, 2 * held));
      }
    } while (again && !stopping.signal.aborted);
    if (total > 0) deps.logger.info({ entries: total }, job.done);
    return total;
  }

  const runNow = () => {
    if (running) again = true;
    return (running ??= run().finally(() => (running = undefined)));
  };
  return {
    start() {
      runNow().catch((error: unknown) => deps.logger.warn({ err: error }, job.stopped));
    },
    runNow,
    async stop() {
      stopping.abort();
      await running?.catch(() => undefined);
    },
  };
}
