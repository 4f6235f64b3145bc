import type { HttpTrafficRecord, TrafficSource } from '@tapline/shared';
import type { HttpTrafficTable, RequestsTable, ResponsesTable } from '../db/schema.js';
import type { Deps } from '../deps.js';
import { isoNow, newId } from '../deps.js';
import { preparedInsert } from '../db/prepared.js';
import type { IngestHook, StoredEntry } from './bus.js';
import type { PreparedRecord, ShownExchange } from './prepare.js';
import { findOrCreateDomain, findOrCreatePathname } from './repo.js';

export interface ComposeDeps extends Pick<Deps, 'db' | 'clock' | 'bus'> {
  readonly hooks: readonly IngestHook[];
}

/** Records of one request (a single compose or a batch), stored all or none. */
export interface ComposeItem {
  readonly source: TrafficSource;
  readonly records: readonly PreparedRecord[];
}

/**
 * Ids of domains and pathnames known to exist, by `source host` and `domainId path`. Only ids
 * from committed transactions enter it; the owner clears it when a transaction fails.
 */
export interface IdCache {
  readonly domains: Map<string, string>;
  readonly pathnames: Map<string, string>;
}

/** Rows per multi-row INSERT: 13 columns each stays far below SQLite's bound-variable limit. */
const ROWS_PER_INSERT = 500;

const insertRequests = preparedInsert('requests', ['id', 'traffic_source_id', 'headers', 'body', 'query_params'] satisfies Array<keyof RequestsTable>);
const insertResponses = preparedInsert('responses', ['id', 'traffic_source_id', 'headers', 'body'] satisfies Array<keyof ResponsesTable>);
const insertTraffic = preparedInsert('http_traffic', [
  'id', 'traffic_source_id', 'domain_id', 'pathname_id', 'request_id', 'response_id', 'status', 'method', 'level', 'protocol',
  'elapsed_time', 'traffic_user_id', 'created_at',
] satisfies Array<keyof HttpTrafficTable>);

function* chunks<T>(rows: readonly T[]): Generator<T[]> {
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) yield rows.slice(i, i + ROWS_PER_INSERT);
}

/**
 * Stores the records of several requests in one transaction (group commit): their domains and
 * pathnames found or created, ids given, one multi-row insert per table, the ingest hooks run
 * inside it, and the bus told after it commits. Returns each item's entries in input order.
 */
export async function storeGroup(deps: ComposeDeps, items: readonly ComposeItem[], cache: IdCache): Promise<StoredEntry[][]> {
  const { db, clock } = deps;
  const createdAt = isoNow(clock);
  const learned: IdCache = { domains: new Map(), pathnames: new Map() };
  const results: StoredEntry[][] = [];
  const all: StoredEntry[] = [];
  const requests: RequestsTable[] = [];
  const responses: ResponsesTable[] = [];
  const traffic: HttpTrafficTable[] = [];

  await db.transaction().execute(async (trx) => {
    for (const { source, records } of items) {
      const entries: StoredEntry[] = [];
      for (const record of records) {
        const { domain, pathname, status, method, level, protocol, elapsedTime } = record;
        const domainKey = `${source.id} ${domain}`;
        let domainId = cache.domains.get(domainKey) ?? learned.domains.get(domainKey);
        if (!domainId) learned.domains.set(domainKey, (domainId = await findOrCreateDomain(trx, source.id, domain, createdAt)));
        const pathKey = `${domainId} ${pathname}`;
        let pathnameId = cache.pathnames.get(pathKey) ?? learned.pathnames.get(pathKey);
        if (!pathnameId) learned.pathnames.set(pathKey, (pathnameId = await findOrCreatePathname(trx, source.id, domainId, pathname, createdAt)));

        const id = newId();
        const requestId = newId();
        const responseId = newId();
        requests.push({ id: requestId, traffic_source_id: source.id, headers: record.requestHeaders, body: record.requestBody, query_params: record.queryParams });
        responses.push({ id: responseId, traffic_source_id: source.id, headers: record.responseHeaders, body: record.responseBody });
        traffic.push({
          id, traffic_source_id: source.id, domain_id: domainId, pathname_id: pathnameId, request_id: requestId, response_id: responseId, status,
          method, level, protocol, elapsed_time: elapsedTime, traffic_user_id: record.trafficUserId, created_at: createdAt,
        });
        // A literal, not spreads of shared parts: spreading a conditional part built slow
        // dictionary-mode objects, once a sixth of a batch's time.
        const entry: StoredEntry = { id, status, method, level, elapsedTime, createdAt, trafficSourceId: source.id, domainId, pathnameId, requestId, responseId, domain, pathname, protocol };
        if (record.trafficUserId) entry.trafficUserId = record.trafficUserId;
        entries.push(entry);
        all.push(entry);
      }
      results.push(entries);
    }
    for (const rows of chunks(requests)) await insertRequests(trx, rows);
    for (const rows of chunks(responses)) await insertResponses(trx, rows);
    for (const rows of chunks(traffic)) await insertTraffic(trx, rows);
    for (const hook of deps.hooks) await hook(trx, all);
  });

  for (const [key, id] of learned.domains) cache.domains.set(key, id);
  for (const [key, id] of learned.pathnames) cache.pathnames.set(key, id);
  deps.bus.publish(all);
  return results;
}

/** The answer to a single compose: the stored entry with the request and response as stored. */
export function composedRecord(entry: StoredEntry, shown: ShownExchange): HttpTrafficRecord {
  const { id, status, method, level, elapsedTime, createdAt, domain, pathname, protocol, trafficSourceId } = entry;
  const record: HttpTrafficRecord = { id, status, method, level, elapsedTime, createdAt, domain, pathname, protocol, trafficSourceId, ...shown };
  if (entry.trafficUserId) record.trafficUserId = entry.trafficUserId;
  return record;
}
