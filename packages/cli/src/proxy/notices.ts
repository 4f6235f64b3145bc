import { type DropEvent, type Refusal, refusalOf } from '@tapline/shared';
import type { CliContext } from '../context.js';

/** At most one line of each kind per this many ms: a daemon that is down must not flood stderr. */
const EVERY_MS = 5_000;

/** What to do about a refusal, by status. */
const HINTS: Readonly<Record<number, string>> = {
  401: 'check the token (--token, TAPLINE_TOKEN or `tapline login`)',
  403: 'the token may not write to this source',
  404: 'see `tapline sources list`',
};

/** Stderr notices about recording trouble, throttled; the proxied traffic itself is never affected. */
export function createNotices(ctx: CliContext, everyMs = EVERY_MS) {
  let lastDrop = 0;
  let lastFailure = 0;
  let pendingDrops: DropEvent | null = null;
  let timer: NodeJS.Timeout | undefined;
  const say = (event: DropEvent) => {
    lastDrop = Date.now();
    pendingDrops = null;
    const why =
      event.reason === 'rejected'
        ? `the daemon refused records (${event.error?.message ?? 'rejected'})`
        : 'the record queue is full (daemon slow or down)';
    ctx.note(`tapline proxy: ${why}; ${event.total} records dropped so far`);
  };
  return {
    dropped(event: DropEvent) {
      // A refusal of the token or source was said once, by `refused`; its drops only add to the summary.
      if (event.reason === 'rejected' && refusalOf(event.error)) return;
      if (Date.now() - lastDrop >= everyMs) return say(event);
      // Report the latest total once the quiet period is over, so the last count is never lost.
      pendingDrops = event;
      timer ??= setTimeout(
        () => {
          timer = undefined;
          if (pendingDrops) say(pendingDrops);
        },
        everyMs - (Date.now() - lastDrop),
      );
      timer.unref();
    },
    /** The recorder reports a refusal once (and again only after records were stored since). */
    refused(refusal: Refusal) {
      ctx.note(
        `tapline proxy: the daemon refused the records (${refusal.status} ${refusal.message}); they are dropped, not retried: ${HINTS[refusal.status] ?? 'check the token and the source'}`,
      );
    },
    failed(error: Error) {
      if (Date.now() - lastFailure < everyMs) return;
      lastFailure = Date.now();
      ctx.note(`tapline proxy: cannot deliver records to the daemon (${error.message}); holding them and retrying`);
    },
    /** Prints a drop total still waiting for its turn. */
    stop() {
      clearTimeout(timer);
      if (pendingDrops) say(pendingDrops);
    },
  };
}
