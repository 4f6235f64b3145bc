import type { SendResult } from './send.js';

/** Six attempts: the first at once, then retries about 2 s, 8 s, 32 s, 2 min and 8.5 min later. */
export const MAX_ATTEMPTS = 6;
const FIRST_RETRY_MS = 2_000;
const GROWTH = 4;
/** A Retry-After longer than this is cut to it, so one answer cannot park a message for a day. */
const MAX_RETRY_AFTER_MS = 15 * 60_000;

export type Verdict =
  | { readonly outcome: 'delivered'; readonly statusCode: number }
  | {
      readonly outcome: 'retrying';
      readonly statusCode: number | null;
      readonly error: string;
      readonly delayMs: number;
    }
  | { readonly outcome: 'failed'; readonly statusCode: number | null; readonly error: string };

/**
 * Wait before retry number `retry` (1 for the first retry): exponential, with "equal jitter"
 * (between half and all of the step) so that many webhooks failing together spread out.
 */
export function backoffMs(retry: number, random: () => number): number {
  const step = FIRST_RETRY_MS * GROWTH ** (retry - 1);
  return Math.round(step / 2 + (step / 2) * random());
}

/** `Retry-After: 7` or an HTTP date, else Discord's and Slack's JSON `retry_after` (seconds). */
export function retryAfterMs(
  headers: Readonly<Record<string, string | string[] | undefined>>,
  body: string,
  now: Date,
): number | null {
  const header = headers['retry-after'];
  const text = (Array.isArray(header) ? header[0] : header)?.trim();
  let ms: number | null = null;
  if (text && /^\d+(\.\d+)?$/.test(text)) ms = Number(text) * 1000;
  else if (text && !Number.isNaN(Date.parse(text))) ms = Math.max(0, Date.parse(text) - now.getTime());
  if (ms === null) {
    try {
      const parsed: unknown = JSON.parse(body);
      const value =
        parsed && typeof parsed === 'object' && 'retry_after' in parsed ? Number(parsed.retry_after) : Number.NaN;
      if (Number.isFinite(value) && value >= 0) ms = value * 1000;
    } catch {
      // Not JSON: there is no retry_after to honour.
    }
  }
  return ms === null ? null : Math.min(Math.ceil(ms), MAX_RETRY_AFTER_MS);
}

const snippet = (body: string) => body.replace(/\s+/g, ' ').trim().slice(0, 200);

/**
 * The delivery rules: 2xx is delivered; 408, 429, 5xx and no answer at all are retried (a
 * Retry-After wins over the backoff) until MAX_ATTEMPTS; any other answer (other 4xx, a redirect,
 * which is never followed) is final, as is an address that is not allowed.
 */
export function judge(result: SendResult, attempt: number, now: Date, random: () => number): Verdict {
  const last = attempt >= MAX_ATTEMPTS;
  if (!result.ok) {
    if (!result.retryable || last) return { outcome: 'failed', statusCode: null, error: result.error };
    return { outcome: 'retrying', statusCode: null, error: result.error, delayMs: backoffMs(attempt, random) };
  }
  const status = result.status;
  if (status >= 200 && status < 300) return { outcome: 'delivered', statusCode: status };
  const detail = snippet(result.body);
  if (status >= 300 && status < 400) {
    const location = result.headers.location ? ` to ${String(result.headers.location)}` : '';
    return { outcome: 'failed', statusCode: status, error: `answered ${status} (redirect${location}, not followed)` };
  }
  const error = `answered ${status}${detail ? `: ${detail}` : ''}`;
  const retryable = status === 408 || status === 429 || status >= 500;
  if (!retryable || last) return { outcome: 'failed', statusCode: status, error };
  const asked = retryAfterMs(result.headers, result.body, now);
  return { outcome: 'retrying', statusCode: status, error, delayMs: asked ?? backoffMs(attempt, random) };
}

/** A test message is sent once: what would be retried has failed. */
export const lastAttempt = (verdict: Verdict): Verdict =>
  verdict.outcome === 'retrying'
    ? { outcome: 'failed', statusCode: verdict.statusCode, error: verdict.error }
    : verdict;
