import { contract, type CoreLog, type Page, type TaplineClient } from '@tapline/shared/browser';

/**
 * The API lists a source's core logs newest first, a page at a time, and has no filter by entry
 * and no read of one log by id (spec 4.2); the page adds nothing to the daemon (issue 29), so it
 * finds a log, or an entry's logs, by reading pages. Both searches are bounded, and say so.
 */
export const LOG_PAGE = 100;
/** How many pages of LOG_PAGE the logs view reads to find a log a link names. */
export const FIND_PAGES = 50;
/** An entry's logs: pages of 1000, newest first, down to this long before the entry (or SCAN_PAGES). */
const SCAN_LIMIT = 1000;
const SCAN_PAGES = 10;
const BEFORE_ENTRY_MS = 60 * 60_000;

export const listLogs = (
  client: TaplineClient,
  sourceId: string,
  page: number,
  limit = LOG_PAGE,
): Promise<Page<CoreLog>> =>
  client.call(contract.listCoreLogs, { params: { trafficSourceId: sourceId }, query: { page, limit } });

/** The page (of LOG_PAGE) that holds log `id`, or undefined past FIND_PAGES or the last page. */
export async function findLogPage(
  client: TaplineClient,
  sourceId: string,
  id: string,
): Promise<{ readonly page: number; readonly answer: Page<CoreLog> } | undefined> {
  for (let page = 1; page <= FIND_PAGES; page++) {
    const answer = await listLogs(client, sourceId, page);
    if (answer.data.some((log) => log.id === id)) return { page, answer };
    if (page * LOG_PAGE >= answer.meta.total) return undefined;
  }
  return undefined;
}

export interface LinkedLogs {
  readonly logs: readonly CoreLog[];
  /** True when the search stopped at SCAN_PAGES with older logs left unread. */
  readonly partial: boolean;
}

/**
 * The core logs whose `httpTrafficId` is the entry: written during its request, so near its time.
 * Pages are read until they reach an hour before the entry (a log is written while the request
 * runs, the entry when it ends), the end, or SCAN_PAGES.
 */
export async function linkedLogs(
  client: TaplineClient,
  sourceId: string,
  entryId: string,
  entryCreatedAt: string,
): Promise<LinkedLogs> {
  const floor = Date.parse(entryCreatedAt) - BEFORE_ENTRY_MS;
  const found: CoreLog[] = [];
  for (let page = 1; page <= SCAN_PAGES; page++) {
    const answer = await listLogs(client, sourceId, page, SCAN_LIMIT);
    found.push(...answer.data.filter((log) => log.httpTrafficId === entryId));
    const oldest = answer.data.at(-1);
    if (!oldest || page * SCAN_LIMIT >= answer.meta.total || Date.parse(oldest.createdAt) < floor)
      return { logs: found, partial: false };
  }
  return { logs: found, partial: true };
}
