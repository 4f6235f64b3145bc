import type { NewTrafficRow } from '../http-traffic/table.js';
import { exchangeIdOf } from '../http-traffic/exchange-id.js';
import { bodyBytes, type StatInput } from '../route-stats/rollup.js';
import type { StoredEntry } from '../stream/bus.js';
import type { PreparedRecord } from './prepare.js';

/** What a record is filed under, looked up in its transaction. */
export interface Filed {
  readonly domainId: string;
  readonly pathnameId: string;
  readonly route: { readonly id: string; readonly template: string };
}

/**
 * One prepared record as its traffic row, the entry the answer and the bus carry, and (with
 * `stats`) what it adds to its route's numbers: pure, so ingest.ts keeps only the transaction and
 * its order.
 */
export function rowsOf(
  sourceId: string,
  record: PreparedRecord,
  filed: Filed,
  receivedAt: string,
  id: string,
  stats: boolean,
): { row: NewTrafficRow; entry: StoredEntry; stat: StatInput | undefined } {
  const { domain, pathname, status, method, level, protocol, elapsedTime } = record;
  const { domainId, pathnameId, route } = filed;
  // docs/decisions.md §17.1: the client's start time when it sent one; ids stay arrival order.
  const createdAt = record.startedAt ?? receivedAt;
  // Derived, not stored (compact storage); toEntry derives them again at every read.
  const requestId = exchangeIdOf(id, 'request');
  const responseId = exchangeIdOf(id, 'response');
  const row: NewTrafficRow = {
    id,
    traffic_source_id: sourceId,
    domain_id: domainId,
    pathname_id: pathnameId,
    request_id: null,
    response_id: null,
    status,
    method,
    level,
    protocol,
    elapsed_time: elapsedTime,
    traffic_user_id: record.trafficUserId,
    created_at: createdAt,
    route: record.route,
    route_id: route.id,
    stream_seq: 0, // numbered by insertTraffic, last in the transaction
    // JSON text; insertExchanges puts it in its stored form (compact storage, docs/storage.md).
    request_headers: record.requestHeaders,
    request_body: record.requestBody,
    query_params: record.queryParams,
    response_headers: record.responseHeaders,
    response_body: record.responseBody,
  };
  // A literal, not spreads of shared parts: spreading a conditional part built slow
  // dictionary-mode objects, once a sixth of a batch's time.
  const entry: StoredEntry = {
    id,
    status,
    method,
    level,
    elapsedTime,
    createdAt,
    trafficSourceId: sourceId,
    domainId,
    pathnameId,
    requestId,
    responseId,
    domain,
    pathname,
    protocol,
  };
  if (record.trafficUserId) entry.trafficUserId = record.trafficUserId;
  entry.route = route.template;
  const stat: StatInput | undefined = stats
    ? {
        sourceId,
        routeId: route.id,
        method,
        domainId,
        createdAt,
        status,
        elapsedTime,
        requestBytes: bodyBytes(record.requestBody),
        responseBytes: bodyBytes(record.responseBody),
      }
    : undefined;
  return { row, entry, stat };
}
