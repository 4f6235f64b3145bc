import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Gives memory back after large batches. Storing one leaves tens of MB of dead strings in V8's
 * old space, and V8 collects them only when more is allocated: a daemon that goes quiet after a
 * burst kept its peak for good (issue 11). A full collection returns that memory, and bounds the
 * garbage of batches that follow each other to about the largest batch's worth. It costs tens of
 * milliseconds, next to the second or two a 16 MiB batch takes.
 *
 * Not after every batch, though: a forced collection when the last batch is garbage and the next
 * not yet parsed finds no live object of the shapes a batch makes, so V8 drops those shapes and
 * throws away all the optimized code built on them, and recompiles it during the next batch. With
 * a collection after each batch of 1,000 records, a quarter of the daemon's CPU went to
 * recompiling (docs/performance.md, decisions §20.18). So a collection comes after a batch of half
 * `budgetBytes` or more, as after every large batch before; after smaller ones once they add up to
 * `budgetBytes`; and once large bodies stop coming for `quietMs`.
 *
 * A run of large bodies is told to `flowing` as it starts and once it has stopped for `quietMs`:
 * the daemon's old generation may grow further in between (heap-limits.ts), and that last
 * collection is then made under the lean heap's limits again.
 *
 * `gc` exists only with `--expose-gc`, a flag a user starting `taplined` cannot be asked for; V8
 * installs it in contexts made after the flag is set, so one new context is enough to reach it.
 * That context is made by the first collection, once for every reclaimer of the thread: a start
 * made two (the app's and the event streams') for nothing it answers (decisions §20.39).
 */
export interface Reclaimer {
  /**
   * A large body's work is done and its memory garbage: collect `delayMs` later if it was a
   * batch of half the budget or more (without a size: the largest), or once the large bodies since
   * the last collection add up to the budget; else when no other follows within `quietMs`. No
   * bytes (0): nothing to do.
   */
  readonly soon: (bytes?: number) => void;
  /**
   * Before the next batch (of `nextBytes`): collect now if a collection is due, or if anything is
   * owed and the next is a batch of half the budget or more, which is never parsed beside garbage.
   */
  readonly due: (nextBytes?: number) => void;
}

/**
 * The largest body the daemon takes (the batch endpoint's): between two collections, at most this
 * much of large bodies' garbage. A batch of half of it or more is collected after, and is never
 * parsed beside another's garbage in the worker, as every large batch was before.
 */
export const RECLAIM_BUDGET_BYTES = 16 * 1024 * 1024;
/** How long large bodies must stop coming before their memory is collected. */
export const RECLAIM_QUIET_MS = 1_000;

/** V8's `gc`, from the context made for it by the first collection (undefined until then). */
let exposedGc: { gc: unknown } | undefined;

/**
 * Runs a full collection: `gc` from a context made after `--expose-gc` was set, the first time. A
 * context without it (the name undefined there throws) is remembered as none: collections are then
 * V8's own, as they were before this one was asked for.
 */
function collectGarbage(): void {
  exposedGc ??= { gc: gcOfNewContext() };
  if (typeof exposedGc.gc === 'function') Reflect.apply(exposedGc.gc, undefined, []);
}

function gcOfNewContext(): unknown {
  try {
    return runInNewContext('gc');
  } catch {
    return undefined;
  }
}

export interface ReclaimOptions {
  readonly budgetBytes?: number;
  readonly quietMs?: number;
  /**
   * Told `true` at the first large body of a run of them, and `false` once none has come for
   * `quietMs`, just before the collection that follows (the daemon's heap, heap-limits.ts).
   */
  readonly flowing?: (flowing: boolean) => void;
}

export function createReclaimer(
  delayMs = 50,
  { budgetBytes = RECLAIM_BUDGET_BYTES, quietMs = RECLAIM_QUIET_MS, flowing }: ReclaimOptions = {},
): Reclaimer {
  setFlagsFromString('--expose-gc');
  const big = budgetBytes / 2;
  let due: NodeJS.Timeout | undefined;
  let quiet: NodeJS.Timeout | undefined;
  let owed = 0;
  /** Whether `flowing` was last told `true`. */
  let inFlow = false;
  const collect = () => {
    clearTimeout(due);
    due = undefined;
    owed = 0;
    // In a run of large bodies, its end is still to come, and is still told, a quiet spell later.
    if (!inFlow) {
      clearTimeout(quiet);
      quiet = undefined;
    }
    collectGarbage();
  };
  const quietCollect = () => {
    quiet = undefined;
    if (inFlow) {
      inFlow = false;
      flowing?.(false);
    }
    collect();
  };
  const quietLater = () => {
    clearTimeout(quiet);
    quiet = setTimeout(quietCollect, quietMs).unref();
  };
  return {
    soon(bytes = Infinity) {
      // Nothing was read (a client gone while it waited): nothing to collect, nor to put off.
      if (!(bytes > 0)) return;
      owed += bytes;
      if (flowing && !inFlow) {
        inFlow = true;
        flowing(true);
      }
      const now = bytes >= big || owed >= budgetBytes;
      if (now) due ??= setTimeout(collect, delayMs).unref();
      if (!now || inFlow) quietLater();
    },
    due(nextBytes = 0) {
      if (due || (owed > 0 && nextBytes >= big)) collect();
    },
  };
}
