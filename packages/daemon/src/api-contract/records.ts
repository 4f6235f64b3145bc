import { setImmediate as nextTurn } from 'node:timers/promises';
import { durationMs } from '@tapline/shared/lean';
import type { HttpTrafficRecord, TrafficFilters } from '@tapline/shared';
import type { Store } from '../db/open.js';
import type { StoredPayload } from '../db/payload.js';
import { invalidField } from '../http/errors.js';
import { after, type HarCursor } from '../har/repo.js';
import { parseJson, routeOf, trafficFilter } from '../http-traffic/repo.js';

/**
 * Exchanges read per query: one page (bodies included, about 1.5 MB of realistic ones) is the most
 * either pass holds. Larger pages than the HAR export's 200 halve the round trips for little memory.
 */
const PAGE = 1000;

export interface RecordWindow {
  readonly since?: string | undefined;
  readonly until?: string | undefined;
  readonly route?: readonly string[] | undefined;
}

/** A duration back from `now`, or an ISO 8601 time (the schema let only these through). */
const instantOf = (text: string, now: number): string => {
  const span = durationMs(text);
  return new Date(
    span !== undefined ? now - span : Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00.000Z` : text),
  ).toISOString();
};

/** The list's filters for a window: stored times compared as text, both ends inclusive. */
export function filtersOf(window: RecordWindow, now: number): TrafficFilters {
  const filters: TrafficFilters = {};
  if (window.since) filters.startDate = instantOf(window.since, now);
  if (window.until) filters.endDate = instantOf(window.until, now);
  if (filters.startDate && filters.endDate && filters.startDate > filters.endDate) {
    throw invalidField('since', `since (${filters.startDate}) must be before until (${filters.endDate})`);
  }
  return filters;
}

/**
 * What inference and checking read of an entry: no level, timing, user or exchange ids (an
 * HttpTrafficRecord is one, so tests hand in whole records).
 */
export type ContractExchange = Pick<
  HttpTrafficRecord,
  'id' | 'createdAt' | 'method' | 'status' | 'protocol' | 'domain' | 'pathname' | 'route' | 'request' | 'response'
>;

type ExchangeRow = Awaited<ReturnType<ReturnType<typeof exchangeRows>['execute']>>[number];

/**
 * Only the columns an exchange needs, the payloads as stored: they are decoded here by the
 * database's codec, not in SQL (`payloadText`), where each text crossed into SQLite and back
 * again as a copy (decisions §25.7).
 */
const exchangeRows = ({ db }: Store) =>
  db
    .selectFrom('http_traffic as t')
    .innerJoin('domains as d', 'd.id', 't.domain_id')
    .innerJoin('pathnames as p', 'p.id', 't.pathname_id')
    .leftJoin('routes as r', 'r.id', 't.route_id')
    .select([
      't.id',
      't.created_at',
      't.method',
      't.status',
      't.protocol',
      't.route',
      'd.value as domain',
      'p.value as pathname',
      'r.template as route_template',
    ])
    .select(['t.request_headers', 't.request_body', 't.query_params', 't.response_headers', 't.response_body']);

const exchangeOf = (row: ExchangeRow, decode: (value: StoredPayload) => string): ContractExchange => ({
  id: row.id,
  createdAt: row.created_at,
  method: row.method,
  status: row.status,
  protocol: row.protocol,
  domain: row.domain,
  pathname: row.pathname,
  route: routeOf(row),
  request: {
    headers: parseJson(decode(row.request_headers)),
    body: row.request_body === null ? null : parseJson(decode(row.request_body)),
    queryParams: parseJson(decode(row.query_params)),
  },
  response: {
    headers: parseJson(decode(row.response_headers)),
    body: row.response_body === null ? null : parseJson(decode(row.response_body)),
  },
});

/**
 * Every exchange of a source in a window, oldest first (by time, then id: the order, and so the
 * inferred document, is the same at every read), one page at a time: memory holds one page
 * whatever the number of entries. With routes, each route's entries in turn, sorted by template.
 * The event loop gets a turn before each further page (decisions §25.10): SQLite's reads are
 * synchronous, and without it a pass of 100,000 entries held every other request, ingest
 * included, for its whole 5 to 10 s.
 */
export async function* eachExchange(
  store: Store,
  sourceId: string,
  window: RecordWindow,
  now: number,
): AsyncGenerator<ContractExchange> {
  const base = filtersOf(window, now);
  const decode = (value: StoredPayload) => store.dialect.payloads.decode(value);
  const routes = window.route ? [...new Set(window.route)].sort() : [undefined];
  let pages = 0;
  for (const route of routes) {
    const filters: TrafficFilters = route === undefined ? base : { ...base, route };
    let cursor: HarCursor | null = null;
    for (;;) {
      if (pages++ > 0) await nextTurn();
      const rows = await exchangeRows(store)
        .where((eb) =>
          cursor
            ? eb.and([trafficFilter(eb, store.dialect, sourceId, filters), after(store.dialect, cursor)])
            : trafficFilter(eb, store.dialect, sourceId, filters),
        )
        .orderBy('t.created_at', 'asc')
        .orderBy('t.id', 'asc')
        .limit(PAGE)
        .execute();
      for (const row of rows) yield exchangeOf(row, decode);
      const last = rows.at(-1);
      if (!last || rows.length < PAGE) break;
      cursor = { createdAt: last.created_at, id: last.id };
    }
  }
}
