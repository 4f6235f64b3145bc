import { buildPath, PAGE_START_PATHS, queryString } from '@tapline/shared/browser';
import { keepToken, storedToken, takeTokenFromFragment } from './token.js';
import { parseUrlState } from './url-state.js';

/**
 * The page's first requests, sent by its first module before the rest of the script (React, the
 * contract's zod schemas) is loaded and run: the token check and, when the address opens a
 * source's traffic, its first page. The daemon works on them while the script runs, and the typed
 * client, when it asks for the same URL, is given that answer and checks it against the contract
 * as any other (docs/decisions.md §24.10). Nothing but fetch, the address and the token is used here.
 */

/**
 * The traffic list's first page: a few screens, so that little is checked and drawn before the
 * first row; the list then fills in behind it to the newest `LIST_LIMIT` (useTrafficFeed.ts).
 */
export const FIRST_PAGE_LIMIT = 100;
/** How many stored entries the list shows when it opens (the most one page may hold). */
export const LIST_LIMIT = 1000;

/** The query of the traffic list's first page (first-page.ts), and of the one asked for at start. */
export const firstPageQuery = (q: string) => ({ q: q || undefined, limit: FIRST_PAGE_LIMIT });

interface Start {
  readonly token: string | undefined;
  /** By URL: each answer is handed out once. */
  readonly asked: Map<string, Promise<Response>>;
  readonly send: typeof fetch;
}

const networkFetch: typeof fetch = (input, init) => fetch(input, init);
let start: Start = { token: undefined, asked: new Map(), send: networkFetch };

/** Takes the token (the fragment's, else the tab's) and sends the first requests with it. */
export function startEarly(send: typeof fetch = networkFetch): void {
  const fromFragment = takeTokenFromFragment();
  const token = fromFragment ?? storedToken();
  start = { token, asked: new Map(), send };
  if (!token) return;
  // Kept now, while the page's chunk is still being fetched and compiled: a tab's first use of
  // its storage is slow (tens of ms). The token check that follows removes a refused one.
  if (fromFragment) keepToken(fromFragment);
  const ask = (path: string) => {
    const url = `${window.location.origin}${path}`;
    const answer = send(url, { method: 'GET', headers: { authorization: `Bearer ${token}` } });
    answer.catch(() => undefined); // read (or dropped) by the typed client; never an unhandled rejection
    start.asked.set(url, answer);
  };
  ask(PAGE_START_PATHS.me);
  const state = parseUrlState(window.location.search);
  if (state.view === 'traffic' && state.source)
    ask(
      buildPath(PAGE_START_PATHS.listTraffic, { trafficSourceId: state.source }) + queryString(firstPageQuery(state.q)),
    );
}

/** The token the page started with, if any. */
export const startToken = (): string | undefined => start.token;

/** The typed client's fetch: a GET sent at start with the same token is answered by it, once. */
export function earlyFetch(token: string | undefined): typeof fetch {
  return (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const same = token !== undefined && token === start.token && (init?.method ?? 'GET') === 'GET';
    const answer = same ? start.asked.get(url) : undefined;
    if (!answer) return start.send(input, init);
    start.asked.delete(url);
    return answer;
  };
}
