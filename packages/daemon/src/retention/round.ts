import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { SqlDialect } from '../db/dialect.js';
import type { Db } from '../db/open.js';
import type { RetentionPolicy } from './options.js';
import type { Pause } from './pace.js';
import { ageCutoff, BUDGET_TARGET, MAX_BUDGET_PASSES, overBudget, passAgain } from './plan.js';
import { addRemoved, noneRemoved, type Removed } from './prune.js';
import type { StorageOps } from './storage.js';
import { pruneBefore, pruneToSize } from './sweep.js';

export interface RoundDeps {
  readonly db: Db;
  readonly dialect: SqlDialect;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly ops: StorageOps;
  readonly policy: RetentionPolicy;
}

/** What rounds carry from one to the next; the pruner owns it. */
export interface RoundState {
  /** The size the last budget prune left (see `overBudget`). */
  sizeAfterPrune: number | undefined;
  /** Commits heard since start (with a budget): ingest during a pass hides what the pass freed. */
  commits: number;
}

/** Whether the database is over its budget now (see `overBudget`). */
export async function isOverBudget(deps: Pick<RoundDeps, 'ops' | 'policy'>, state: RoundState): Promise<boolean> {
  if (deps.policy.maxBytes === null) return false;
  return overBudget(await deps.ops.sizeBytes(), deps.policy.maxBytes, state.sizeAfterPrune);
}

/**
 * One round: entries past the age limit, then budget passes while `passAgain` says so, each
 * followed by giving the space back; logged when it removed anything.
 */
export async function pruneRound(
  deps: RoundDeps,
  state: RoundState,
  run: { readonly signal: AbortSignal; readonly pause: Pause },
): Promise<Removed> {
  const { policy, ops } = deps;
  const removed = noneRemoved();
  const started = Date.now();
  if (policy.maxAgeMs !== null)
    addRemoved(removed, await pruneBefore(deps.db, deps.dialect, ageCutoff(deps.clock.now(), policy.maxAgeMs), run));
  if (removed.entries > 0) await ops.reclaim(run.pause, run.signal);
  if (policy.maxBytes !== null && (await isOverBudget(deps, state))) {
    for (let pass = 0; pass < MAX_BUDGET_PASSES; pass++) {
      const sizeBefore = await ops.sizeBytes();
      const commitsBefore = state.commits;
      const pruned = await pruneToSize(deps.db, deps.dialect, ops, policy.maxBytes * BUDGET_TARGET, run);
      addRemoved(removed, pruned);
      await ops.reclaim(run.pause, run.signal);
      state.sizeAfterPrune = await ops.sizeBytes();
      const done = { entries: pruned.entries, sizeBefore, sizeAfter: state.sizeAfterPrune };
      if (!passAgain({ ...done, ingested: state.commits !== commitsBefore }, policy.maxBytes, ops.shrinks)) break;
    }
  }
  if (removed.entries > 0)
    deps.logger.info({ ...removed, ms: Date.now() - started, bytes: await ops.sizeBytes() }, 'pruned old traffic');
  return removed;
}
