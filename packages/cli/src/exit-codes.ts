import { ApiError, contract, formatBytes, isRecord, NotTaplineError, UnreachableError } from '@tapline/shared';
import { expiredRefusal, type TokenInUse } from './token-refusal.js';

/** The CLI's exit codes: a public interface, documented in the README. */
export const EXIT = {
  OK: 0,
  UNEXPECTED: 1,
  /** `traffic diff` only, as diff(1): the two differ (its unexpected errors exit 2 instead). */
  DIFFERENT: 1,
  /** `api check` only: some stored exchange breaks the spec (and `api diff`: a breaking change). */
  NONCONFORMING: 1,
  USAGE: 2,
  UNREACHABLE: 3,
  AUTH: 4,
  NOT_FOUND: 5,
  FORBIDDEN: 6,
  INVALID: 7,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A failure meant for the person at the shell: one or two lines, and the code to exit with. */
export class CliError extends Error {
  constructor(
    readonly exitCode: ExitCode,
    message: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export const usage = (message: string, hint?: string) => new CliError(EXIT.USAGE, message, hint);
export const invalid = (message: string, hint?: string) => new CliError(EXIT.INVALID, message, hint);
export const notFound = (message: string, hint?: string) => new CliError(EXIT.NOT_FOUND, message, hint);

const TOKEN_HINT =
  'log in with `tapline login --email <you>`, pass --token, or create one with `taplined token create <email>`';

/** The limits a 413 is about: the daemon's `--max-body` for one request, a fixed one for a batch. */
export const BODY_LIMIT_HINT = `taplined's --max-body sets how large one request may be (1mb unless set; a batch may be ${formatBytes(contract.composeBatch.maxBody ?? 0)})`;

/** What an error needs of the command that met it: the daemon's URL, the token sent, --debug. */
export interface ErrorContext extends TokenInUse {
  readonly url: string;
  readonly debug: boolean;
}

/** Exit 3, as for no daemon at all: at that URL there is none to talk to. */
const notTapline = (url: string, detail: string, ctx: ErrorContext | undefined) =>
  new CliError(EXIT.UNREACHABLE, `${url}: not a Tapline daemon`, ctx?.debug ? detail : undefined);

/**
 * Maps anything thrown to a CliError; only the entry file turns it into a process exit. `ctx`,
 * when a command got that far, lets a refusal say more (an expired token, a foreign server).
 */
export function toCliError(error: unknown, ctx?: ErrorContext): CliError {
  if (error instanceof CliError) return error;
  if (error instanceof UnreachableError) {
    return new CliError(
      EXIT.UNREACHABLE,
      `cannot reach the Tapline daemon at ${error.url} (${error.reason})`,
      'start it with `taplined`, or point --url / TAPLINE_URL at a running one',
    );
  }
  if (error instanceof NotTaplineError) return notTapline(error.url, error.detail, ctx);
  if (error instanceof ApiError) {
    const issues = error.body.issues?.length
      ? `: ${error.body.issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ')}`
      : '';
    // The daemon's `code` decides (docs/decisions.md §2.5, §14.3); the status is the fallback for
    // answers that carry none (a proxy in between, an older daemon).
    if (error.code === 'token_missing') return new CliError(EXIT.AUTH, 'no token was sent to the daemon', TOKEN_HINT);
    switch (error.status) {
      case 400:
        return new CliError(
          EXIT.INVALID,
          `rejected by the daemon: ${error.body.issues?.length ? issues.slice(2) : error.body.error}`,
        );
      case 401: {
        const expired = expiredRefusal(error, ctx);
        if (expired) return new CliError(EXIT.AUTH, expired.message, expired.hint);
        return new CliError(EXIT.AUTH, `the daemon refused the token (${error.body.error})`, TOKEN_HINT);
      }
      case 403:
        return new CliError(
          EXIT.FORBIDDEN,
          "forbidden: this token may not do that (another user's resource, or a read/ingest-only or source-restricted token)",
        );
      case 404:
        return new CliError(EXIT.NOT_FOUND, error.body.error);
      case 413:
        return new CliError(EXIT.INVALID, `rejected by the daemon: ${error.body.error}`, BODY_LIMIT_HINT);
      case 409:
      case 415:
      case 422:
        return new CliError(EXIT.INVALID, `rejected by the daemon: ${error.body.error}`);
      default:
        return new CliError(EXIT.UNEXPECTED, `the daemon answered ${error.status}: ${error.body.error}`);
    }
  }
  return new CliError(EXIT.UNEXPECTED, error instanceof Error ? error.message : String(error));
}

/** The `code` of a system error (`ENOENT`, `ECONNREFUSED`), when the thrown value has one. */
export const errorCode = (error: unknown): string | undefined =>
  isRecord(error) && typeof error.code === 'string' ? error.code : undefined;
