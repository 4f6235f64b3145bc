import { type JsonValue, jsonOrText } from '@tapline/shared/browser';

/** What the app answered, as far as the browser lets the page read it. */
export interface ReplayAnswer {
  readonly status: number;
  readonly statusText: string;
  /** Only the headers CORS lets a page read: the safelisted ones and those in `Access-Control-Expose-Headers`. */
  readonly headers: Readonly<Record<string, string>>;
  /** Parsed when it is JSON, else the text; null when empty. */
  readonly body: JsonValue;
  /** Milliseconds from sending to the whole body. */
  readonly elapsedTime: number;
}

/** How a replay ended: an answer, or why there is none, each said on the page. */
export type ReplayOutcome =
  | { readonly kind: 'answer'; readonly answer: ReplayAnswer }
  /** A redirect: with `redirect: 'manual'` a browser hides its status and Location (an opaque answer). */
  | { readonly kind: 'redirect' }
  /** The daemon's Content-Security-Policy did not let the page connect there. */
  | { readonly kind: 'csp'; readonly origin: string }
  /** No answer the page may read: the app is down, or answered without CORS. */
  | { readonly kind: 'unreachable'; readonly origin: string; readonly reason: string };

export interface SendDeps {
  readonly fetch: typeof fetch;
  /** Where the browser reports a `connect-src` refusal (`securitypolicyviolation`). */
  readonly events: Pick<EventTarget, 'addEventListener' | 'removeEventListener'>;
  readonly now: () => number;
}

const browserDeps = (): SendDeps => ({
  fetch: window.fetch.bind(window),
  events: document,
  now: () => performance.now(),
});

/** The violation event is a task queued beside the fetch's rejection: one turn of the loop lets it arrive. */
const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * Sends the replay with the page's own `fetch`, never through the daemon's client: it carries
 * only the headers given, so the daemon's token never reaches the app. Never throws.
 */
export async function sendFromBrowser(
  url: URL,
  init: RequestInit,
  deps: SendDeps = browserDeps(),
): Promise<ReplayOutcome> {
  let refused = false;
  const onViolation = (event: Event) => {
    const blocked = 'blockedURI' in event ? String(event.blockedURI) : '';
    if (blocked.startsWith(url.origin)) refused = true;
  };
  deps.events.addEventListener('securitypolicyviolation', onViolation);
  const started = deps.now();
  try {
    const response = await deps.fetch(url, init);
    if (response.type === 'opaqueredirect') return { kind: 'redirect' };
    const text = await response.text();
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const elapsedTime = Math.round((deps.now() - started) * 10) / 10;
    return {
      kind: 'answer',
      answer: {
        status: response.status,
        statusText: response.statusText,
        headers,
        body: jsonOrText(text),
        elapsedTime,
      },
    };
  } catch (error) {
    await nextTask();
    if (refused) return { kind: 'csp', origin: url.origin };
    return { kind: 'unreachable', origin: url.origin, reason: error instanceof Error ? error.message : String(error) };
  } finally {
    deps.events.removeEventListener('securitypolicyviolation', onViolation);
  }
}
