import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Gives memory back after a large batch. Storing one leaves tens of MB of dead strings in V8's
 * old space, and V8 collects them only when more is allocated: a daemon that goes quiet after a
 * burst kept its peak for good (issue 11). A full collection once the batch is done returns that
 * memory, and bounds the peak of batches that follow each other to about one batch's worth. It
 * costs tens of milliseconds, next to the second or two a 16 MiB batch takes.
 *
 * `gc` exists only with `--expose-gc`, a flag a user starting `taplined` cannot be asked for; V8
 * installs it in contexts made after the flag is set, so one new context is enough to reach it.
 */
export interface Reclaimer {
  /** Collect shortly, once what is running now has let go of its batch. */
  readonly soon: () => void;
  /** Collect now if a collection is due: before the next batch, so two are never held at once. */
  readonly due: () => void;
}

export function createReclaimer(delayMs = 50): Reclaimer {
  setFlagsFromString('--expose-gc');
  const gc: unknown = runInNewContext('gc');
  let timer: NodeJS.Timeout | undefined;
  const collect = () => {
    clearTimeout(timer);
    timer = undefined;
    if (typeof gc === 'function') Reflect.apply(gc, undefined, []);
  };
  return {
    soon() {
      timer ??= setTimeout(collect, delayMs).unref();
    },
    due() {
      if (timer) collect();
    },
  };
}
