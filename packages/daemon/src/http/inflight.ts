/**
 * Handlers still running. Stopping waits for them before the database closes: a client that
 * gives up mid-request closes its socket (so the server no longer waits for it) while its handler
 * may still be waiting on a worker thread, and would otherwise write to a closed database.
 */
export interface Inflight {
  track<T>(work: Promise<T>): Promise<T>;
  /**
   * Resolves once nothing tracked is running, including work tracked while waiting, or after
   * `timeoutMs` at most (false then), so that no handler can hold up a stop for ever.
   */
  drain(timeoutMs: number): Promise<boolean>;
}

const ignore = () => undefined;

export function createInflight(): Inflight {
  const running = new Set<Promise<unknown>>();
  return {
    track(work) {
      const settled = work.then(ignore, ignore);
      running.add(settled);
      void settled.then(() => running.delete(settled));
      return work;
    },
    async drain(timeoutMs) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
      const idle = (async () => {
        while (running.size > 0) await Promise.all(running);
        return true as const;
      })();
      try {
        return await Promise.race([idle, late]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
