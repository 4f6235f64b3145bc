import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { EventEmitter } from 'node:events';
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, type HeapSpaceInfo, setFlagsFromString } from 'node:v8';
import { START_GROWTH_FACTOR, V8_GROWTH_FACTOR } from './start-flags.js';

/**
 * The young generation's cap, both semi-spaces together: V8's default lets them grow to 32 MiB
 * (16 each) under load, all of it resident, for garbage that a smaller nursery collects just as
 * well at this daemon's rates (docs/performance.md, "Memory: where it is, and the heap's slack").
 */
export const YOUNG_GENERATION_CAP_BYTES = 16 * 1024 * 1024;
/** The old generation's next limit: 10% over what a full collection left, instead of V8's 1.1x to 4x. */
const HEAP_GROWING_PERCENT = 10;
/**
 * While large batches are being stored: the old generation's next limit twice what a full
 * collection left (V8's own choice went to 4x, and kept its young generation at 32 MiB after some
 * bursts; decisions §20.41).
 */
const BATCHES_GROWING_PERCENT = 100;
/** `--heap-growing-percent`'s own value: V8 chooses the old generation's slack itself. */
const V8_GROWING_PERCENT = 0;
/**
 * Where a worker thread's young generation starts, per semi-space, in MB: V8's largest, which each
 * thread's own `resourceLimits.maxYoungGenerationSizeMb` brings down to its cap. The lean heap's
 * factor is every thread's (afterThreadStart), and at 1 a thread's young generation stays where it
 * started, V8's 1 MiB: the batch worker then scavenged its batches' trees many times over (about
 * 35 µs more of its CPU a record, docs/performance.md, "Single composes: the tail"). Read only when
 * an isolate is made, so the event loop's own young generation, made at start, is not touched.
 */
const THREAD_SEMI_SPACE_MB = 16;
const MIB = 1024 * 1024;

/** What `growthFactor` reads of the young generation (`v8.getHeapSpaceStatistics()`'s `new_space`). */
export type NewSpace = Pick<HeapSpaceInfo, 'space_used_size' | 'space_available_size'>;

/**
 * The factor by which V8 may next grow each semi-space so that both together stay within the cap.
 * One semi-space's capacity is its used plus available bytes: `space_size` counts the second one
 * only while it is committed, and V8 releases it after an idle spell, so `space_size` can read half
 * of what the young generation will be again at its next scavenge (which made the factor twice too
 * large: 32 MiB after a daemon had been idle).
 */
export function growthFactor(newSpace: NewSpace): number {
  const semiSpace = Math.ceil((newSpace.space_used_size + newSpace.space_available_size) / MIB) * MIB;
  return Math.max(1, Math.floor(YOUNG_GENERATION_CAP_BYTES / 2 / Math.max(MIB, semiSpace)));
}

const newSpace = (): NewSpace | undefined => getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');

/**
 * A served daemon's lean heap (unless `taplined --no-lean-heap`): keeps V8's heap near its live
 * data (issue 30), from code: the two flags it takes are needed together, and `NODE_OPTIONS`
 * refuses `--heap-growing-percent` (decisions §20.13), while `--max-semi-space-size` is read only
 * when V8 starts. V8 reads `--semi-space-growth-factor` each time the young generation grows, and
 * `--heap-growing-percent` at each full collection. The growth factor is set after each
 * collection: one step to the cap from where the young generation is, 1 (no growth) once it is
 * there; if V8 shrinks it (the memory reducer, when idle), it may grow back to the cap. The factor
 * follows a collection only once it is reported (`gc` performance entries arrive on a later turn
 * of the event loop), so a long synchronous task (a large batch's write) can still grow the young
 * generation to V8's own maximum, never past it. The flags are the process's (worker threads'
 * isolates read them too). Call once, in a long-running process; returns a function that stops and
 * puts V8's defaults back.
 */
export function limitHeap(): () => void {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT} --min-semi-space-size=${THREAD_SEMI_SPACE_MB}`);
  const limits: Limits = { factor: 0, growingPercent: HEAP_GROWING_PERCENT };
  limited = limits;
  const follow = (): void => {
    const space = newSpace();
    if (!space) return;
    // V8 grows each semi-space to this factor times its present capacity.
    const wanted = growthFactor(space);
    if (wanted === limits.factor) return;
    limits.factor = wanted;
    setFlagsFromString(`--semi-space-growth-factor=${wanted}`);
  };
  follow();
  const observer = new PerformanceObserver(follow);
  observer.observe({ entryTypes: ['gc'] });
  subscribe('worker_threads', afterThreadStart);
  return () => {
    unsubscribe('worker_threads', afterThreadStart);
    observer.disconnect();
    limited = undefined;
    setFlagsFromString(V8_DEFAULTS);
  };
}

/** The two flags at V8's own values: a process that never limited its heap has these. */
const V8_DEFAULTS = `--semi-space-growth-factor=${V8_GROWTH_FACTOR} --heap-growing-percent=${V8_GROWING_PERCENT} --min-semi-space-size=0`;

/** The limits in force, while `limitHeap` is: the growth factor last set, and the old generation's slack. */
interface Limits {
  factor: number;
  growingPercent: number;
}
let limited: Limits | undefined;

/**
 * While large batches are being stored (`true`, http/reclaim.ts says when: from the first one's
 * answer), the old generation may grow to twice what a full collection left; once they stop
 * (`false`), to the lean heap's 10% over it again, from the next full collection on (the
 * reclaimer makes one then, on the event loop; the batch worker's thread ends 2 s after its last
 * batch, its heap with it). A large batch leaves tens of MiB that are garbage by the next, and at
 * 10% V8 collected the event loop's whole old generation about every other batch of 1,000
 * (decisions §20.41, docs/performance.md). Nothing while the lean heap is off.
 */
export function largeBatchesFlowing(flowing: boolean): void {
  const limits = limited;
  const percent = flowing ? BATCHES_GROWING_PERCENT : HEAP_GROWING_PERCENT;
  if (!limits || limits.growingPercent === percent) return;
  limits.growingPercent = percent;
  setFlagsFromString(`--heap-growing-percent=${percent}`);
}

/** Set once a daemon without the lean heap has given V8 its own growth factor back (`endStart`). */
let started = false;

/**
 * For a daemon without the lean heap, once it listens: V8's own growth factor again, in place of
 * the start's (start-flags.ts), which the launcher set before it compiled the bundle.
 */
export function endStart(): void {
  started = true;
  setFlagsFromString(`--semi-space-growth-factor=${V8_GROWTH_FACTOR}`);
}

/**
 * Runs `make` under the flags the launcher set when it compiled the bundle (start-flags.ts), and
 * puts back after it those the daemon set since (the lean heap's limits, or V8's growth factor).
 * For the launcher's code cache (launch.ts): V8 stamps a cache with a hash of its flags as they
 * are when the cache is made, and a start refuses a cache made under other flags. Made under the
 * lean heap's limits, the cache was refused by every later start, which compiled the whole bundle
 * and wrote the cache again. `make` is synchronous: no collection is reported, so no factor is set,
 * while it runs.
 */
export function underStartFlags<T>(make: () => T): T {
  const limits = limited;
  if (!limits && !started) return make();
  setFlagsFromString(
    `--semi-space-growth-factor=${START_GROWTH_FACTOR} --heap-growing-percent=${V8_GROWING_PERCENT} --min-semi-space-size=0`,
  );
  try {
    return make();
  } finally {
    if (limits) {
      // The lean heap's factor, or the start's, still in force, if `follow` found no young generation.
      const factor = limits.factor > 0 ? limits.factor : START_GROWTH_FACTOR;
      setFlagsFromString(
        `--semi-space-growth-factor=${factor} --heap-growing-percent=${limits.growingPercent} --min-semi-space-size=${THREAD_SEMI_SPACE_MB}`,
      );
    } else setFlagsFromString(`--semi-space-growth-factor=${V8_GROWTH_FACTOR}`);
  }
}

/**
 * Puts the lean heap's two flags back once a worker thread is online: V8 configures a new
 * thread's heap (`Heap::ConfigureHeap`) with `--semi-space-growth-factor` raised to at least 2,
 * in the process's one set of flags, which undid the lean heap's 1 (no growth, at the cap) and let
 * the event loop's young generation grow to 32 MiB under composes once the checkpoint thread,
 * db/checkpointer.ts, had started. `--heap-growing-percent` is left as it was; it is set with it
 * here as everywhere. Node publishes each new `Worker` on the `worker_threads` diagnostics channel
 * before its isolate exists; `online` comes after (some 30 to 55 ms on a loaded machine, during
 * which the factor is 2). The factor set here is every thread's: a worker's young generation
 * does not grow either while it is 1, and so starts at its cap (THREAD_SEMI_SPACE_MB).
 */
function afterThreadStart(message: unknown): void {
  // A `Worker` (an EventEmitter), without loading node:worker_threads for the check.
  const worker = message instanceof Object && 'worker' in message ? message.worker : undefined;
  if (!(worker instanceof EventEmitter)) return;
  worker.once('online', () => {
    const limits = limited;
    if (!limits) return;
    const factor = limits.factor > 0 ? limits.factor : START_GROWTH_FACTOR;
    setFlagsFromString(`--semi-space-growth-factor=${factor} --heap-growing-percent=${limits.growingPercent}`);
  });
}
