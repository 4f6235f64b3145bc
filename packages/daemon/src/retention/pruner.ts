import { logTaskFailure } from '../db/task-failure.js';
import type { OutageLog } from '../db/unavailable.js';
import type { TrafficBus } from '../stream/bus.js';
import { inTheDaemon } from './pace.js';
import { sizeCheckDelay } from './plan.js';
import { addRemoved, noneRemoved, type Removed } from './prune.js';
import { isOverBudget, pruneRound, type RoundDeps, type RoundState } from './round.js';

export interface Pruner {
  /** Runs at once, then every `everyMs`, and whenever ingest takes the database past its budget. */
  start(): void;
  /** One round now (a running round finishes first); resolves with what it removed. */
  runNow(): Promise<Removed>;
  stop(): Promise<void>;
}

export interface PrunerDeps extends RoundDeps {
  readonly outages: OutageLog;
  readonly bus: TrafficBus;
}

/**
 * The rounds' schedule: one at start, one every `everyMs`, one after a commit that took the
 * database over its budget; a round asked for while one runs follows it. What a round removes is
 * round.ts's, what it decides plan.ts's (docs/decisions.md §26.9).
 */
export function createPruner(deps: PrunerDeps): Pruner {
  const { policy } = deps;
  const stopping = new AbortController();
  const run = { signal: stopping.signal, pause: inTheDaemon(deps.ops) };
  const state: RoundState = { sizeAfterPrune: undefined, commits: 0 };
  let timer: NodeJS.Timeout | undefined;
  let unsubscribe: (() => void) | undefined;
  let running: Promise<Removed> | undefined;
  let again = false;
  let sizeCheckDue = false;
  let lastSizeCheck = 0;
  let trailing: NodeJS.Timeout | undefined;

  function runNow(): Promise<Removed> {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      const total = noneRemoved();
      let more = true;
      while (more && !stopping.signal.aborted) {
        again = sizeCheckDue = false;
        addRemoved(total, await pruneRound(deps, state, run));
        more = again || (sizeCheckDue && (await isOverBudget(deps, state)));
      }
      return total;
    })().finally(() => (running = undefined));
    return running;
  }

  const background = () => {
    if (stopping.signal.aborted) return;
    // The next round (a timer, or the next commit over budget) tries again.
    runNow().catch((error: unknown) => logTaskFailure(deps, error, 'pruning'));
  };

  const checkSize = () => {
    trailing = undefined;
    // A round that is running looks at the size again before it ends.
    if (running) return void (sizeCheckDue = true);
    lastSizeCheck = Date.now();
    isOverBudget(deps, state).then(
      (over) => over && background(),
      (error: unknown) => logTaskFailure(deps, error, 'reading the database size'),
    );
  };

  return {
    start() {
      background();
      timer = setInterval(background, policy.everyMs);
      timer.unref();
      if (policy.maxBytes === null) return;
      // At most one look per SIZE_CHECK_MS, and one after the last commit of a burst.
      unsubscribe = deps.bus.subscribe(() => {
        state.commits++;
        if (trailing || stopping.signal.aborted) return;
        trailing = setTimeout(checkSize, sizeCheckDelay(lastSizeCheck, Date.now()));
        trailing.unref();
      });
    },
    runNow,
    async stop() {
      stopping.abort();
      clearInterval(timer);
      clearTimeout(trailing);
      unsubscribe?.();
      await running?.catch(() => undefined);
    },
  };
}
