/**
 * What a pruner does between two of its write transactions, told how long the last one took.
 * SQLite has one writer: the pruner's pause is the only moment anyone else can write.
 */
export type Pause = (heldMs: number) => Promise<void>;

/** The storage's passive checkpoint (StorageOps.checkpoint), which a pause runs. */
interface LogCopier {
  checkpoint(): Promise<void>;
}

/** One turn of the event loop: every write queued on the connection meanwhile goes first. */
export const nextTurn: Pause = () => new Promise<void>((resolve) => setImmediate(resolve));

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * In the daemon, whose ingest shares the pruner's connection (and queues for it, so it gets the
 * next turn) and its event loop. A prune of 169,000 entries back to back took half the event loop
 * for 49 s: compose p99 went from 70 to 390 ms at 50 connections. So the pruner rests twice as
 * long as it worked, a third of the loop at most. And it copies the log back as it goes, a
 * little at a time: left to the commits' autocheckpoint, 40 MB of the prune's pages were copied
 * at once, 0.6-2 s with the event loop stopped.
 */
export function inTheDaemon(ops: LogCopier): Pause {
  return async (heldMs) => {
    const started = performance.now();
    await ops.checkpoint();
    await sleep(2 * (heldMs + performance.now() - started));
  };
}

/**
 * The shortest gap left beside another process. A writer that finds the lock taken waits inside
 * SQLite's busy handler, which sleeps and looks again (1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50,
 * then 100 ms apart): it does not queue. A gap of a turn of the event loop between two
 * transactions was almost never seen by it: beside `taplined prune` the daemon's composes waited
 * seconds. 30 ms is longer than any of those sleeps for a writer that began waiting during a
 * transaction of up to 50 ms; after a longer one the gap is as long as the transaction was.
 */
const MIN_GAP_MS = 30;

/**
 * Beside another process (`taplined prune` while the daemon runs). The gap also copies the log
 * back (a passive checkpoint, which holds no one up): left to the daemon, the next of its commits
 * past `wal_autocheckpoint` copied the prune's pages, 100-600 ms on its event loop.
 */
export function besideAnotherProcess(ops: LogCopier): Pause {
  return async (heldMs) => {
    const started = performance.now();
    await ops.checkpoint();
    const left = Math.max(MIN_GAP_MS, heldMs) - (performance.now() - started);
    if (left > 0) await sleep(left);
  };
}
