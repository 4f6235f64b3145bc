import type { ComposeRecord, HttpTrafficRecord, Level, TrafficSource } from '@tapline/shared';
import type { Deps } from '../deps.js';
import { isoNow, newId } from '../deps.js';
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

/**
 * Stores records in one transaction (all or none), with their domain and pathname found or
 * created and their secrets redacted, runs the ingest hooks inside it, and tells the bus after
 * it commits. Returns the records in input order.
 */
export async function composeRecords(deps: ComposeDeps, source: TrafficSource, inputs: readonly ComposeRecord[]): Promise<HttpTrafficRecord[]> {
  const { db, clock, redactor } = deps;
  const createdAt = isoNow(clock);
  const records: HttpTrafficRecord[] = [];
  const entries: StoredEntry[] = [];

  // A batch repeats a few hosts and paths: look each up once per transaction.
  const domainIds = new Map<string, string>();
  const pathnameIds = new Map<string, string>();

  await db.transaction().execute(async (trx) => {
    for (const input of inputs) {
      const domain = domainOf(input.domainUrl);
      let domainId = domainIds.get(domain);
      if (!domainId) domainIds.set(domain, (domainId = await findOrCreateDomain(trx, source.id, domain, createdAt)));
      const pathKey = `${domainId} ${input.pathnameUrl}`;
      let pathnameId = pathnameIds.get(pathKey);
      if (!pathnameId) pathnameIds.set(pathKey, (pathnameId = await findOrCreatePathname(trx, source.id, domainId, input.pathnameUrl, createdAt)));
      const request = {
        headers: redactor.headers(input.requestHeaders),
        body: redactor.values(input.requestBody),
        queryParams: redactor.values(input.queryParams),
      };
      const response = { headers: redactor.headers(input.responseHeaders), body: redactor.values(input.responseBody) };
      const ids = { id: newId(), requestId: newId(), responseId: newId() };
      const level = levelOf(input.status);

      await trx
        .insertInto('requests')
        .values({ id: ids.requestId, traffic_source_id: source.id, headers: JSON.stringify(request.headers), body: jsonOrNull(request.body), query_params: JSON.stringify(request.queryParams) })
        .execute();
      await trx
        .insertInto('responses')
        .values({ id: ids.responseId, traffic_source_id: source.id, headers: JSON.stringify(response.headers), body: jsonOrNull(response.body) })
        .execute();
      await trx
        .insertInto('http_traffic')
        .values({
          id: ids.id,
          traffic_source_id: source.id,
          domain_id: domainId,
          pathname_id: pathnameId,
          request_id: ids.requestId,
          response_id: ids.responseId,
          status: input.status,
          method: input.method,
          level,
          protocol: input.protocol,
          elapsed_time: input.elapsedTime,
          traffic_user_id: input.trafficUserId ?? null,
          created_at: createdAt,
        })
        .execute();

      const trafficUser = input.trafficUserId ? { trafficUserId: input.trafficUserId } : {};
      const common = { id: ids.id, status: input.status, method: input.method, level, elapsedTime: input.elapsedTime, createdAt };
      records.push({ ...common, domain, pathname: input.pathnameUrl, protocol: input.protocol, trafficSourceId: source.id, ...trafficUser, request, response });
      entries.push({
        ...common,
        ...trafficUser,
        trafficSourceId: source.id,
        domainId,
        pathnameId,
        requestId: ids.requestId,
        responseId: ids.responseId,
        domain,
        pathname: input.pathnameUrl,
        protocol: input.protocol,
      });
    }
    for (const hook of deps.hooks) await hook(trx, entries);
  });

  deps.bus.publish(entries);
  return records;
}
