import type { TaplineClient } from '../client.js';
import { ApiError, UnreachableError } from '../errors.js';
import { SourceNotFoundError } from './source.js';

/**
 * What the recorder does with an answer other than 201 (docs/decisions.md §10.6):
 * - `later`: the daemon (or a proxy before it) cannot take records now: 503, 502, 504, 408, 429.
 *   Retried with backoff, after Retry-After, for as long as it lasts; records wait in the queue.
 * - `server-error`: any other 5xx, which one record may cause: retried, then the batch is halved
 *   until the record stands alone, and a lone record that keeps failing is given up.
 * - `too-large`: 413, the batch is halved; a lone record is invalid.
 * - `refused`: 401, 403, 404: the token or the source, which no retry fixes. Given up at once.
 * - `invalid`: any other 4xx: the records are given up (a 400 names the bad ones).
 */
export type Verdict = 'later' | 'server-error' | 'too-large' | 'refused' | 'invalid';

const LATER = new Set([408, 429, 502, 503, 504]);
const REFUSED = new Set([401, 403, 404]);

export function verdictOf(status: number): Verdict {
  if (LATER.has(status)) return 'later';
  if (status >= 500) return 'server-error';
  if (status === 413) return 'too-large';
  return REFUSED.has(status) ? 'refused' : 'invalid';
}

/** Why records were given up: the `rejectedBy` counts of the recorder's stats. */
export type RejectReason = 'invalid' | 'unauthorized' | 'forbidden' | 'notFound' | 'serverError';

export function rejectReasonOf(status: number): RejectReason {
  if (status === 401) return 'unauthorized';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'notFound';
  return status >= 500 ? 'serverError' : 'invalid';
}

/**
 * A Retry-After far in the future must not park the queue: the wait it asks for is honoured up
 * to this, then the recorder's own backoff resumes.
 */
export const RETRY_AFTER_CAP_MS = 30_000;

/** Retry-After (seconds, or an HTTP date) in ms, at most the cap; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  const text = header?.trim();
  if (!text) return undefined;
  const ms = /^\d+(\.\d+)?$/.test(text) ? Number(text) * 1000 : Date.parse(text) - now;
  return Number.isNaN(ms) ? undefined : Math.min(RETRY_AFTER_CAP_MS, Math.max(0, ms));
}

/** The daemon refused the token or the source: what a user is told once, and what stats() keep. */
export interface Refusal {
  /** 401, 403 or 404. */
  readonly status: number;
  /** The daemon's error message, or what looking the source up found. */
  readonly message: string;
  /** Records given up with this answer. */
  readonly count: number;
}

/** A refusal with the error that carried it. */
export interface RefusalError extends Omit<Refusal, 'count'> {
  readonly error: Error;
}

/** The refusal an error stands for, when looking up the source or sending was refused. */
export function refusalOf(error: unknown): RefusalError | undefined {
  if (error instanceof SourceNotFoundError) return { status: 404, message: error.message, error };
  if (error instanceof ApiError && verdictOf(error.status) === 'refused')
    return { status: error.status, message: error.message, error };
  return undefined;
}

/** A 400 names bad items as `3.method`; these are the indexes. */
export const badIndexes = (error: ApiError, n: number) =>
  new Set(
    (error.body.issues ?? [])
      .map((issue) => Number(/^(\d+)(?:\.|$)/.exec(issue.path)?.[1] ?? Number.NaN))
      .filter((i) => Number.isInteger(i) && i < n),
  );

/** An answer read whole. */
export interface Answer {
  readonly status: number;
  readonly text: string;
  readonly retryAfter: string | null;
}

/** POSTs JSON and reads the whole answer; no answer (refused, reset, timed out) is an UnreachableError. */
export async function postJson(client: TaplineClient, path: string, body: string, timeoutMs: number): Promise<Answer> {
  try {
    const response = await client.raw(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    return { status: response.status, text: await response.text(), retryAfter: response.headers.get('retry-after') };
  } catch (error) {
    // The time-out aborts the request (or the reading of its answer) with a bare DOMException.
    if (error instanceof Error && error.name === 'TimeoutError')
      throw new UnreachableError(client.baseUrl, `timed out after ${timeoutMs} ms`);
    throw error;
  }
}
