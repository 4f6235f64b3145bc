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
 * next turn) and its event loop: a prune back to back took half the loop for most of a minute,
 * and compose latency with it. So the pruner rests twice as long as it worked, a third of the
 * loop at most. And it copies the log back as it goes, a little at a time: left to the commits'
 * autocheckpoint, the prune's pages were copied at once with the event loop stopped for seconds
 * (docs/performance.md#retention-and-the-pruner).
 */
export function inTheDaemon(ops: LogCopier): Pause {
  return async (heldMs) => {
    const started = performance.now();
    await ops.checkpoint();
    await sleep(2 * (heldMs + performance.now() - started));
  };
}

/**
 * SQLite's busy handler: a writer that finds the lock taken sleeps these milliseconds between two
 * looks (sqliteDefaultBusyCallback), then 100 ms apart. It does not queue: it gets the lock only
 * if it looks while the lock is free.
 */
const BUSY_SLEEPS_MS = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100];

/**
 * The longest sleep that a writer which began waiting during a transaction of `heldMs` can be in
 * when the transaction ends: its look before the end came at most `heldMs` after it began.
 */
export function longestSleepAfter(heldMs: number): number {
  let looked = 0; // the first look is the write that found the lock taken
  let longest = BUSY_SLEEPS_MS[0] ?? 1;
  for (const ms of BUSY_SLEEPS_MS) {
    // A look at the very end may still find the lock taken: it sleeps the next step.
    if (looked > heldMs) return longest;
    longest = ms;
    looked += ms;
  }
  return 100;
}

/** What the waiting writer needs beyond its sleep to wake, take the lock and begin. */
const WAKE_MS = 5;

/**
 * Beside another process (`taplined prune` while the daemon runs). The lock stays free for as long
 * as the transaction held it (the other process's share of the writes), and at least for the
 * longest sleep a writer that began waiting during it can be in, so that it looks while the lock
 * is free: a gap of one turn of the event loop was almost never seen by it. The gap also copies the
 * log back (a passive checkpoint, which holds no one up), which the daemon's next commit past
 * `wal_autocheckpoint` would do on its event loop (docs/performance.md#retention-and-the-pruner).
 */
export function besideAnotherProcess(ops: LogCopier): Pause {
  return async (heldMs) => {
    const started = performance.now();
    await ops.checkpoint();
    const left = Math.max(longestSleepAfter(heldMs) + WAKE_MS, heldMs) - (performance.now() - started);
    if (left > 0) await sleep(left);
  };
}

/** How long one prune transaction should hold the lock (and, in the daemon, the event loop). */
export const BATCH_TARGET_MS = 10;

/** Entries in the first transaction, before any has been timed, and the bounds of the others. */
const FIRST_BATCH = 50;
const MIN_BATCH = 25;
const MAX_BATCH = 1000;

/**
 * Sizes the pruner's transactions by time, as Percona's pt-table-checksum and
 * pt-online-schema-change size their chunks (`--chunk-time`): the cost of an entry varies with
 * the machine, the database's size and its cache, and the other writer waits for as long as a
 * transaction holds the lock. Each measured batch sets the next size to what would have taken
 * `BATCH_TARGET_MS`, halving or doubling at most, so that one slow batch (a page fetched from disk) does
 * not swing it to the bound.
 */
export class BatchSizer {
  #size = FIRST_BATCH;

  /** Entries for the next transaction. */
  get size(): number {
    return this.#size;
  }

  /** A transaction removed `entries` while it held the lock for `heldMs`. */
  took(entries: number, heldMs: number): void {
    if (entries <= 0) return;
    const fit = (entries * BATCH_TARGET_MS) / Math.max(heldMs, 0.1);
    const bounded = Math.min(this.#size * 2, Math.max(this.#size / 2, fit));
    this.#size = Math.round(Math.min(MAX_BATCH, Math.max(MIN_BATCH, bounded)));
  }
}
