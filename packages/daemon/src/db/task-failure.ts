import type { Logger } from 'pino';
import { isConflict } from './conflict.js';
import { errorCode, isDatabaseUnavailable, type OutageLog } from './unavailable.js';

/**
 * A background task's failed round (the live stream's read, a webhook pass, a prune, an alert
 * evaluation); the task tries again later. The outage line when the database cannot serve; one
 * `warn` line, without a stack, when the round's transaction lost a race with another (a
 * PostgreSQL deadlock's victim or serialization failure, db/conflict.ts; SQLite's busy is an outage
 * here), which its next round runs again; else the error itself, a bug.
 */
export function logTaskFailure(
  logs: { readonly logger: Logger; readonly outages: OutageLog },
  error: unknown,
  task: string,
): void {
  if (isDatabaseUnavailable(error)) logs.outages.report(error, task);
  else if (isConflict(error))
    logs.logger.warn(
      { event: 'transaction_conflict', code: errorCode(error), task },
      `${task} lost a race with another transaction; it tries again`,
    );
  else logs.logger.error({ err: error, task }, `${task} failed; it tries again`);
}
