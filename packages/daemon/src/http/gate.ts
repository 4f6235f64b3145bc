/**
 * At most `concurrency` holders at once; the others wait in arrival order for up to `waitMs`, and
 * past `maxWaiting` are refused at once. Hand-written because it also needs the refusal (the
 * caller answers 503 with `Retry-After`), which p-limit and friends do not give: they only queue.
 */
export interface GateOptions {
  readonly concurrency: number;
  readonly maxWaiting: number;
  readonly waitMs: number;
  /** Called each time a holder leaves, with the bytes it held (the daemon reclaims large batches' memory). */
  readonly onRelease?: (bytes: number | undefined) => void;
}

export interface Gate {
  /**
   * Resolves to a release function (given the bytes the holder held, when known), or to null when
   * the wait was too long or the queue full.
   */
  enter(): Promise<((bytes?: number) => void) | null>;
  readonly running: number;
  readonly waiting: number;
}

export function createGate(options: GateOptions): Gate {
  let running = 0;
  const waiting: Array<(admitted: boolean) => void> = [];

  function release(bytes: number | undefined): void {
    options.onRelease?.(bytes);
    const next = waiting.shift();
    if (next) next(true);
    else running--;
  }

  const once = () => {
    let released = false;
    return (bytes?: number) => {
      if (released) return;
      released = true;
      release(bytes);
    };
  };

  return {
    async enter() {
      if (running < options.concurrency) {
        running++;
        return once();
      }
      if (waiting.length >= options.maxWaiting) return null;
      const admitted = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => {
          waiting.splice(waiting.indexOf(turn), 1);
          resolve(false);
        }, options.waitMs);
        // A released slot passes straight to the next in line: `running` stays as it is.
        const turn = (ok: boolean) => {
          clearTimeout(timer);
          resolve(ok);
        };
        waiting.push(turn);
      });
      return admitted ? once() : null;
    },
    get running() {
      return running;
    },
    get waiting() {
      return waiting.length;
    },
  };
}
