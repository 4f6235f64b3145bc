import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Db } from '../db/open.js';
import { logTaskFailure, type OutageLog } from '../db/unavailable.js';
import type { TrafficBus } from '../stream/bus.js';
import type { RetentionPolicy } from './options.js';
import { inTheDaemon } from './pace.js';
import { addRemoved, noneRemoved, type Removed } from './prune.js';
import type { StorageOps } from './storage.js';
import { pruneBefore, pruneToSize } from './sweep.js';

export interface Pruner {
  /** Runs at once, then every `everyMs`, and whenever ingest takes the database past its budget. */
  start(): void;
  /** One round now (a running round finishes first); resolves with what it removed. */
  runNow(): Promise<Removed>;
  stop(): Promise<void>;
}

export interface PrunerDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly outages: OutageLog;
  readonly bus: TrafficBus;
  readonly ops: StorageOps;
  readonly policy: RetentionPolicy;
}

/** A budget prune brings the database down to this share of the budget, so it runs now and then, not after every commit. */
export const BUDGET_TARGET = 0.9;
/** Budget passes in one round at most; each removes what the excess was, of what is left. */
const MAX_BUDGET_PASSES = 8;
/** After a commit, the size is looked at no more often than this. */
const SIZE_CHECK_MS = 1_000;

export function createPruner(deps: PrunerDeps): Pruner {
  const { policy, ops, logger } = deps;
  const stopping = new AbortController();
  const pause = inTheDaemon(ops);
  let timer: NodeJS.Timeout | undefined;
  let unsubscribe: (() => void) | undefined;
  let running: Promise<Removed> | undefined;
  let again = false;
  let sizeCheckDue = false;
  let lastSizeCheck = 0;
  let trailing: NodeJS.Timeout | undefined;
  /**
   * The size a budget prune left. Where the files do not shrink (PostgreSQL), the database stays
   * over the budget after a prune; pruning again is due only once it has grown past this. The
   * same where pruning could not bring the file down (SQLite: a log another process's reader
   * keeps from being emptied, or names and dictionaries over the budget by themselves): pruning
   * more would only empty the database.
   */
  let sizeAfterPrune: number | undefined;
  /** Commits heard since start (with a budget): ingest during a pass hides what the pass freed. */
  let commits = 0;

  async function overBudget(): Promise<boolean> {
    if (policy.maxBytes === null) return false;
    const size = await ops.sizeBytes();
    return size > policy.maxBytes && (sizeAfterPrune === undefined || size > sizeAfterPrune);
  }

  async function round(): Promise<Removed> {
    const removed = noneRemoved();
    const started = Date.now();
    if (policy.maxAgeMs !== null) {
      const before = new Date(deps.clock.now().getTime() - policy.maxAgeMs).toISOString();
      addRemoved(removed, await pruneBefore(deps.db, before, { signal: stopping.signal, pause }));
    }
    if (removed.entries > 0) await ops.reclaim(pause, stopping.signal);
    if (policy.maxBytes !== null && (await overBudget())) {
      // A pass removes the share of the entries that the excess is; what does not shrink with them
      // (schema, names, dictionaries, the log) can leave the file over budget, and the next pass
      // takes that, for as long as the file still shrinks (PostgreSQL's does not: one pass there).
      // Ingest during a pass can make the file grow although the pass freed room: then the file
      // says nothing, and the next pass looks again (the round ended over budget before, and
      // stayed so once ingest stopped).
      for (let pass = 0; pass < MAX_BUDGET_PASSES; pass++) {
        const before = await ops.sizeBytes();
        const commitsBefore = commits;
        const pruned = await pruneToSize(deps.db, ops, policy.maxBytes * BUDGET_TARGET, {
          signal: stopping.signal,
          pause,
        });
        addRemoved(removed, pruned);
        await ops.reclaim(pause, stopping.signal);
        sizeAfterPrune = await ops.sizeBytes();
        const mayShrinkMore = ops.shrinks && (sizeAfterPrune < before || commits !== commitsBefore);
        if (pruned.entries === 0 || sizeAfterPrune <= policy.maxBytes || !mayShrinkMore) break;
      }
    }
    if (removed.entries > 0)
      logger.info({ ...removed, ms: Date.now() - started, bytes: await ops.sizeBytes() }, 'pruned old traffic');
    return removed;
  }

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
        addRemoved(total, await round());
        more = again || (sizeCheckDue && (await overBudget()));
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

  return {
    start() {
      background();
      timer = setInterval(background, policy.everyMs);
      timer.unref();
      if (policy.maxBytes === null) return;
      const checkSize = () => {
        trailing = undefined;
        // A round that is running looks at the size again before it ends.
        if (running) return void (sizeCheckDue = true);
        lastSizeCheck = Date.now();
        overBudget().then(
          (over) => over && background(),
          (error: unknown) => logTaskFailure(deps, error, 'reading the database size'),
        );
      };
      // At most one look per SIZE_CHECK_MS, and one after the last commit of a burst.
      unsubscribe = deps.bus.subscribe(() => {
        commits++;
        if (trailing || stopping.signal.aborted) return;
        trailing = setTimeout(checkSize, Math.max(0, lastSizeCheck + SIZE_CHECK_MS - Date.now()));
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
