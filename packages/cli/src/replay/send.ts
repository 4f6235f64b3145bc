import { type JsonValue, jsonOrText } from '@tapline/shared';
import { CliError, errorCode, EXIT } from '../exit-codes.js';
import type { ReplayRequest } from './request.js';

/** What the target answered to a replayed request. */
export interface ReplayResponse {
  readonly status: number;
  readonly statusText: string;
  readonly headers: Readonly<Record<string, string | string[]>>;
  /** Parsed when it is JSON, else the text; null when empty. */
  readonly body: JsonValue;
  /** Milliseconds from sending to the whole body. */
  readonly elapsedTime: number;
}

const TIMEOUT_MS = 30_000;

/** The target gave no answer. Its hint is the CLI's `--to`; the terminal UI says its own. */
export class ReplayUnreachable extends CliError {
  constructor(
    readonly origin: string,
    readonly reason: string,
  ) {
    super(
      EXIT.UNEXPECTED,
      `cannot replay to ${origin} (${reason})`,
      'is the target running? --to sends the request elsewhere, such as --to http://localhost:3000',
    );
    this.name = 'ReplayUnreachable';
  }
}

/**
 * Sends the request once and reads the whole answer. Redirects are not followed: the replay
 * shows what the target itself answered, as the recorded exchange did.
 */
export async function sendReplay(
  request: ReplayRequest,
  signal: AbortSignal,
  now: () => number = performance.now.bind(performance),
): Promise<ReplayResponse> {
  const started = now();
  let response: Response;
  try {
    response = await fetch(request.url, {
      method: request.method,
      headers: request.headers.map(([n, v]) => [n, v]),
      // fetch refuses a body on GET; a recorded GET body (rare) is left out rather than failing.
      ...(request.body !== null && request.method !== 'GET' ? { body: request.body } : {}),
      redirect: 'manual',
      signal: AbortSignal.any([signal, AbortSignal.timeout(TIMEOUT_MS)]),
    });
  } catch (error) {
    if (signal.aborted) throw new CliError(EXIT.OK, 'interrupted');
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
    const reason = errorCode(cause) ?? (cause instanceof Error ? cause.message : String(cause));
    throw new ReplayUnreachable(new URL(request.url).origin, reason);
  }
  const text = await response.text();
  const elapsedTime = Math.round((now() - started) * 10) / 10;
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length) headers['set-cookie'] = cookies;
  return { status: response.status, statusText: response.statusText, headers, body: jsonOrText(text), elapsedTime };
}
