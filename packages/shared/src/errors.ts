import type { ReceivedErrorBody } from './schemas/common.js';

/** The daemon answered with an error status; `body` is its `{statusCode, error, code, issues?}`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ReceivedErrorBody,
    /** False when the body was not a Tapline error body (a proxy's page, another server's answer). */
    readonly fromTapline = true,
  ) {
    super(body.error);
    this.name = 'ApiError';
  }

  /** The daemon's machine-readable code; absent when something else (a proxy) answered. */
  get code(): string | undefined {
    return this.body.code;
  }
}

/** No HTTP answer at all: refused, reset, DNS failure or time-out. */
export class UnreachableError extends Error {
  constructor(
    readonly url: string,
    readonly reason: string,
  ) {
    super(`cannot reach the Tapline daemon at ${url} (${reason})`);
    this.name = 'UnreachableError';
  }
}

const isIssue = (issue: unknown): boolean =>
  typeof issue === 'object' &&
  issue !== null &&
  'path' in issue &&
  typeof issue.path === 'string' &&
  'message' in issue &&
  typeof issue.message === 'string';

const isErrorBody = (body: unknown): body is ReceivedErrorBody =>
  typeof body === 'object' &&
  body !== null &&
  'statusCode' in body &&
  Number.isInteger(body.statusCode) &&
  'error' in body &&
  typeof body.error === 'string' &&
  (!('code' in body) || body.code === undefined || typeof body.code === 'string') &&
  (!('issues' in body) || body.issues === undefined || (Array.isArray(body.issues) && body.issues.every(isIssue)));

/**
 * The error an answer with status `status` and body `text` stands for. Checked by hand rather than
 * with the contract's ReceivedErrorBody schema: the middleware's bundle carries no zod. Anything that is
 * not the daemon's error body (a proxy's HTML page) is described by its status.
 */
export function apiErrorOf(status: number, text: string): ApiError {
  try {
    const body: unknown = JSON.parse(text);
    if (isErrorBody(body)) return new ApiError(status, body);
  } catch {
    // Not JSON: a proxy or another server answered; report its status plainly.
  }
  return new ApiError(status, { statusCode: status, error: text.trim().slice(0, 200) || `HTTP ${status}` }, false);
}

/**
 * Something answered at the URL, but not as a Tapline daemon does: a success whose body the
 * contract does not describe, or a 404 without Tapline's error body (the daemon's own 404s always
 * carry one). `detail` says what was seen, for `--debug`; the message stays one line.
 */
export class NotTaplineError extends Error {
  constructor(
    readonly url: string,
    readonly detail: string,
  ) {
    super(`${url}: not a Tapline daemon`);
    this.name = 'NotTaplineError';
  }
}

/** The error for a failed answer: NotTaplineError for a foreign 404, else the ApiError. */
export function answerError(url: string, status: number, text: string): ApiError | NotTaplineError {
  const error = apiErrorOf(status, text);
  return status === 404 && !error.fromTapline
    ? new NotTaplineError(url, `answered 404 with: ${error.body.error.slice(0, 80)}`)
    : error;
}
