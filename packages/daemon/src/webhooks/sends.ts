/**
 * The sends in flight, by webhook, so that deleting a webhook aborts them (`cancel`): nothing
 * reaches a webhook after its delete answered.
 */
export interface Sends {
  /** Runs `send` with a signal that `cancel(webhookId)` aborts. */
  run<T>(webhookId: string, send: (signal: AbortSignal) => Promise<T>): Promise<T>;
  /** A property, not a method: the worker hands it on as the listener of `webhook_deleted`. */
  readonly cancel: (webhookId: string) => void;
}

export function createSends(): Sends {
  const inflight = new Map<string, Set<AbortController>>();
  return {
    async run(webhookId, send) {
      const controller = new AbortController();
      const set = inflight.get(webhookId) ?? new Set();
      set.add(controller);
      inflight.set(webhookId, set);
      try {
        return await send(controller.signal);
      } finally {
        set.delete(controller);
        if (set.size === 0) inflight.delete(webhookId);
      }
    },
    cancel(webhookId) {
      for (const controller of inflight.get(webhookId) ?? []) controller.abort();
    },
  };
}
