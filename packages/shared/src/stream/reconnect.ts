/**
 * docs/decisions.md §9.6: a reconnecting stream client retries every 250 ms for the first 5 s,
 * then backs off to at most 2 s between tries, forever. The 5 s count from the first failure of
 * an outage; a successful connection starts the next outage afresh.
 */
export const RECONNECT = { fastDelayMs: 250, fastWindowMs: 5_000, maxDelayMs: 2_000 } as const;

export interface ReconnectSchedule {
  /** Milliseconds to wait before the next try. */
  next(): number;
  /** The connection is up again. */
  reset(): void;
}

export function createReconnectSchedule(now: () => number = Date.now): ReconnectSchedule {
  let outageStart: number | undefined;
  let slowTries = 0;
  return {
    next() {
      const t = now();
      outageStart ??= t;
      if (t - outageStart < RECONNECT.fastWindowMs) return RECONNECT.fastDelayMs;
      slowTries++;
      return Math.min(RECONNECT.maxDelayMs, RECONNECT.fastDelayMs * 2 ** slowTries);
    },
    reset() {
      outageStart = undefined;
      slowTries = 0;
    },
  };
}
