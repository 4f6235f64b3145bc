import { contract, type ResponseOf, type TaplineClient } from '@tapline/shared/browser';
import { firstPageQuery, LIST_LIMIT } from './early.js';
import { parseUrlState } from './url-state.js';

type FirstPage = ResponseOf<typeof contract.listTraffic>;

interface Asked {
  readonly page: Promise<FirstPage>;
  /** The page once it has come: the list then starts with its rows (`settledFirstPage`). */
  settled?: FirstPage;
}

/** The first page of traffic asked for while the token is checked, by client, then source and filter. */
const early = new WeakMap<TaplineClient, Map<string, Asked>>();
const keyOf = (sourceId: string, q: string) => `${sourceId}\n${q}`;

const listPage = (client: TaplineClient, sourceId: string, query: ReturnType<typeof firstPageQuery>) =>
  client.call(contract.listTraffic, { params: { trafficSourceId: sourceId }, query });

/** The one request for a source's first page, as the traffic list makes it. */
export const listFirstPage = (client: TaplineClient, sourceId: string, q: string) =>
  listPage(client, sourceId, firstPageQuery(q));

/** The newest `LIST_LIMIT` entries matching `q`: what the list fills in behind its first page. */
export const listNewest = (client: TaplineClient, sourceId: string, q: string) =>
  listPage(client, sourceId, { ...firstPageQuery(q), limit: LIST_LIMIT });

/**
 * The rows shown (newest first) with the entries of `newest` older than the last of them added
 * at the end. `newest` was asked for after those rows: entries stored since are the stream's to
 * add at the top, so only what follows the oldest shown row in `newest` is added, in the daemon's
 * order, and none already shown: the list is in `startedAt` order and the stream in the order of
 * storing, so a slow request stored after the first page can start before its last row, and the
 * stream may have brought it already. When `newest` no longer reaches that row (more than a page
 * stored in between), nothing is added rather than a gap.
 */
export function withOlder<T extends { readonly id: string }>(rows: readonly T[], newest: readonly T[]): readonly T[] {
  const oldest = rows.at(-1);
  const at = oldest ? newest.findIndex((entry) => entry.id === oldest.id) : -1;
  if (at < 0) return rows;
  const shown = new Set(rows.map((row) => row.id));
  const older = newest.slice(at + 1).filter((entry) => !shown.has(entry.id));
  return older.length === 0 ? rows : [...rows, ...older];
}

/**
 * When the address opens the traffic of a named source, asks for its first page at once, beside
 * `GET /auth/me` rather than after it: one round trip fewer before the first row (docs/decisions.md
 * §24.10). A refused token fails both; the page's answer to that is the sign-in check's.
 */
export function askFirstPageEarly(client: TaplineClient): Promise<unknown> | undefined {
  const state = parseUrlState(window.location.search);
  if (state.view !== 'traffic' || !state.source) return undefined;
  const asked: Asked = { page: listFirstPage(client, state.source, state.q) };
  // Read (or dropped) by the list; never an unhandled rejection.
  const settled = asked.page.then(
    (page) => {
      asked.settled = page;
    },
    () => undefined,
  );
  early.set(client, new Map([[keyOf(state.source, state.q), asked]]));
  return settled;
}

/** The page asked for early for this client, source and filter, once; else a fresh request. */
export function firstPage(client: TaplineClient, sourceId: string, q: string): Promise<FirstPage> {
  const pages = early.get(client);
  const key = keyOf(sourceId, q);
  const asked = pages?.get(key);
  pages?.delete(key);
  return asked?.page ?? listFirstPage(client, sourceId, q);
}

/**
 * The page asked for early, when it has already come: the list's first render draws its rows, so
 * the shell and the rows are laid out and painted once, not the shell first (`firstPage` still
 * hands the same page to the list's loading, which then changes nothing).
 */
export function settledFirstPage(client: TaplineClient, sourceId: string, q: string): FirstPage | undefined {
  return early.get(client)?.get(keyOf(sourceId, q))?.settled;
}
