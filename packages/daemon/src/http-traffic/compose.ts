import type { ComposeRecord, HttpTrafficRecord, Level, TrafficSource } from '@tapline/shared';
import type { HttpTrafficTable, RequestsTable, ResponsesTable } from '../db/schema.js';
import type { Deps } from '../deps.js';
import { isoNow, newId } from '../deps.js';
import { preparedInsert } from '../db/prepared.js';
import type { IngestHook, StoredEntry } from './bus.js';
import type { Redactor } from './redact.js';
import { findOrCreateDomain, findOrCreatePathname } from './repo.js';

/** decisions.md: 5xx is FATAL, 4xx is WARNING, anything else INFO. */
export function levelOf(status: number): Level {
  if (status >= 500) return 'FATAL';
  if (status >= 400) return 'WARNING';
  return 'INFO';
}

/** The host as a browser shows it: lower case, with the port only when it is not the scheme's default. */
export const domainOf = (domainUrl: string) => new URL(domainUrl).host.toLowerCase();

const jsonOrNull = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));

export interface ComposeDeps extends Pick<Deps, 'db' | 'clock' | 'bus'> {
  readonly redactor: Redactor;
  readonly hooks: readonly IngestHook[];
}

/** Records of one request (a single compose or a batch), stored all or none. */
export interface ComposeItem {
  readonly source: TrafficSource;
  readonly inputs: readonly ComposeRecord[];
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
 * pathnames found or created, secrets redacted, one multi-row insert per table, the ingest hooks
 * run inside it, and the bus told after it commits. Returns each item's records in input order.
 */
export async function storeGroup(deps: ComposeDeps, items: readonly ComposeItem[], cache: IdCache): Promise<HttpTrafficRecord[][]> {
  const { db, clock, redactor } = deps;
  const createdAt = isoNow(clock);
  const learned: IdCache = { domains: new Map(), pathnames: new Map() };
  const results: HttpTrafficRecord[][] = [];
  const entries: StoredEntry[] = [];
  const requests: RequestsTable[] = [];
  const responses: ResponsesTable[] = [];
  const traffic: HttpTrafficTable[] = [];
  // URL parsing per record showed in batch profiles; a group repeats a few origins.
  const domains = new Map<string, string>();

  await db.transaction().execute(async (trx) => {
    for (const { source, inputs } of items) {
      const records: HttpTrafficRecord[] = [];
      for (const input of inputs) {
        let domain = domains.get(input.domainUrl);
        if (domain === undefined) domains.set(input.domainUrl, (domain = domainOf(input.domainUrl)));
        const domainKey = `${source.id} ${domain}`;
        let domainId = cache.domains.get(domainKey) ?? learned.domains.get(domainKey);
        if (!domainId) learned.domains.set(domainKey, (domainId = await findOrCreateDomain(trx, source.id, domain, createdAt)));
        const pathKey = `${domainId} ${input.pathnameUrl}`;
        let pathnameId = cache.pathnames.get(pathKey) ?? learned.pathnames.get(pathKey);
        if (!pathnameId) learned.pathnames.set(pathKey, (pathnameId = await findOrCreatePathname(trx, source.id, domainId, input.pathnameUrl, createdAt)));

        const request = { headers: redactor.headers(input.requestHeaders), body: redactor.values(input.requestBody), queryParams: redactor.values(input.queryParams) };
        const response = { headers: redactor.headers(input.responseHeaders), body: redactor.values(input.responseBody) };
        const ids = { id: newId(), requestId: newId(), responseId: newId() };
        const level = levelOf(input.status);
        requests.push({ id: ids.requestId, traffic_source_id: source.id, headers: JSON.stringify(request.headers), body: jsonOrNull(request.body), query_params: JSON.stringify(request.queryParams) });
        responses.push({ id: ids.responseId, traffic_source_id: source.id, headers: JSON.stringify(response.headers), body: jsonOrNull(response.body) });
        traffic.push({
          id: ids.id, traffic_source_id: source.id, domain_id: domainId, pathname_id: pathnameId, request_id: ids.requestId,
          response_id: ids.responseId, status: input.status, method: input.method, level, protocol: input.protocol,
          elapsed_time: input.elapsedTime, traffic_user_id: input.trafficUserId ?? null, created_at: createdAt,
        });

        // Literals, not spreads of shared parts: spreading a conditional part built slow
        // dictionary-mode objects, and these two lines were a sixth of a batch's time.
        const { status, method, elapsedTime, pathnameUrl: pathname, protocol } = input;
        const record: HttpTrafficRecord = { id: ids.id, status, method, level, elapsedTime, createdAt, domain, pathname, protocol, trafficSourceId: source.id, request, response };
        const entry: StoredEntry = {
          id: ids.id, status, method, level, elapsedTime, createdAt, trafficSourceId: source.id, domainId, pathnameId,
          requestId: ids.requestId, responseId: ids.responseId, domain, pathname, protocol,
        };
        if (input.trafficUserId) record.trafficUserId = entry.trafficUserId = input.trafficUserId;
        records.push(record);
        entries.push(entry);
      }
      results.push(records);
    }
    for (const rows of chunks(requests)) await insertRequests(trx, rows);
    for (const rows of chunks(responses)) await insertResponses(trx, rows);
    for (const rows of chunks(traffic)) await insertTraffic(trx, rows);
    for (const hook of deps.hooks) await hook(trx, entries);
  });

  for (const [key, id] of learned.domains) cache.domains.set(key, id);
  for (const [key, id] of learned.pathnames) cache.pathnames.set(key, id);
  deps.bus.publish(entries);
  return results;
}
