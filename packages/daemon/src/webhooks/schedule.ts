/**
 * When the webhook worker looks again, pure (docs/decisions.md §26.9); worker.ts keeps the timer.
 */

/** Even with nothing due, look again this often: another daemon on the same database may queue. */
export const MAX_SLEEP_MS = 60_000;
/**
 * After a pass that claimed nothing although something was due (each such webhook has a message in
 * flight, here or on another daemon), look again after this long rather than at once.
 */
export const BUSY_RETRY_MS = 1_000;
/** After a failed pass (the database down), look again after 1 s, then 2, 4… up to 30 s, until one succeeds. */
export const FAILED_PASS_RETRY_MS = 1_000;
export const MAX_FAILED_PASS_RETRY_MS = 30_000;

/** After a pass: until the next message falls due (`at`, null for none), within MAX_SLEEP_MS. */
export function nextPassInMs(at: string | null, now: number, claimedLast: number): number {
  const wait = at === null ? MAX_SLEEP_MS : Math.min(MAX_SLEEP_MS, Math.max(0, Date.parse(at) - now));
  return wait === 0 && claimedLast === 0 ? BUSY_RETRY_MS : wait;
}

/** After the `failedPasses`-th failed pass in a row (1 for the first). */
export const retryPassInMs = (failedPasses: number): number =>
  Math.min(MAX_FAILED_PASS_RETRY_MS, FAILED_PASS_RETRY_MS * 2 ** (failedPasses - 1));
