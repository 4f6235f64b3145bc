/**
 * The pruner's decisions, pure: what is old enough to go, whether the database is over its budget,
 * whether a budget pass should be followed by another, when to look at the size after a commit.
 * round.ts acts on them and pruner.ts schedules the rounds (docs/decisions.md §26.9).
 */

/** A budget prune brings the database down to this share of the budget, so it runs now and then, not after every commit. */
export const BUDGET_TARGET = 0.9;
/** Budget passes in one round at most; each removes what the excess was, of what is left. */
export const MAX_BUDGET_PASSES = 8;
/** After a commit, the size is looked at no more often than this. */
export const SIZE_CHECK_MS = 1_000;

/** Entries created before this instant are older than `maxAgeMs` at `now`. */
export const ageCutoff = (now: Date, maxAgeMs: number): string => new Date(now.getTime() - maxAgeMs).toISOString();

/**
 * Over the budget, and grown since the last budget prune. Where the files do not shrink
 * (PostgreSQL), the database stays over the budget after a prune; pruning again is due only once
 * it has grown past the size that prune left (`sizeAfterPrune`). The same where pruning could not
 * bring the file down (SQLite: a log another process's reader keeps from being emptied, or names
 * and dictionaries over the budget by themselves): pruning more would only empty the database.
 */
export function overBudget(size: number, maxBytes: number | null, sizeAfterPrune: number | undefined): boolean {
  return maxBytes !== null && size > maxBytes && (sizeAfterPrune === undefined || size > sizeAfterPrune);
}

/** What one budget pass did. */
export interface BudgetPass {
  readonly entries: number;
  readonly sizeBefore: number;
  readonly sizeAfter: number;
  /** Whether entries were committed during the pass. */
  readonly ingested: boolean;
}

/**
 * Whether a budget pass should be followed by another. A pass removes the share of the entries
 * that the excess is; what does not shrink with them (schema, names, dictionaries, the log) can
 * leave the file over budget, and the next pass takes that, for as long as the file still shrinks
 * (PostgreSQL's does not: one pass there). Ingest during a pass can make the file grow although
 * the pass freed room: then the file says nothing, and the next pass looks again.
 */
export function passAgain(pass: BudgetPass, maxBytes: number, shrinks: boolean): boolean {
  const mayShrinkMore = shrinks && (pass.sizeAfter < pass.sizeBefore || pass.ingested);
  return pass.entries > 0 && pass.sizeAfter > maxBytes && mayShrinkMore;
}

/** How long after a commit to look at the size: at most one look per SIZE_CHECK_MS. */
export const sizeCheckDelay = (lastCheck: number, now: number): number => Math.max(0, lastCheck + SIZE_CHECK_MS - now);
