import type { HttpTraffic, HttpTrafficRecord, JsonValue, Level, PageQuery, TrafficFilters } from '@tapline/shared';
import { type ExpressionBuilder, sql, type Transaction } from 'kysely';
import type { Db } from '../db/open.js';
import type { DB, HttpTrafficTable } from '../db/schema.js';
import { newId } from '../deps.js';
import { countRows, paginate } from '../http/pagination.js';
import { countFromRollup, rollupAnswers } from './counts.js';
import { compileFilter } from './filter-sql.js';

type Executor = Db | Transaction<DB>;
type TrafficEb = ExpressionBuilder<DB & { t: HttpTrafficTable }, 't'>;

/** The documented filters, combined with AND; dates inclusive. Values are always bound. */
export function trafficFilter(eb: TrafficEb, sourceId: string, filters: TrafficFilters) {
  // With an id prefix the primary-key range is the narrowest index; `|| ''` (valid SQL in SQLite and
  // PostgreSQL alike) keeps the planner off the per-source indexes, which would walk every entry.
  const conditions = [filters.idPrefix ? eb(sql<string>`${eb.ref('t.traffic_source_id')} || ''`, '=', sourceId) : eb('t.traffic_source_id', '=', sourceId)];
  if (filters.startDate) conditions.push(eb('t.created_at', '>=', filters.startDate));
  if (filters.endDate) conditions.push(eb('t.created_at', '<=', filters.endDate));
  if (filters.domainId) conditions.push(eb('t.domain_id', '=', filters.domainId));
  if (filters.pathnameId) conditions.push(eb('t.pathname_id', '=', filters.pathnameId));
  if (filters.method) conditions.push(eb('t.method', '=', filters.method));
  if (filters.level) conditions.push(eb('t.level', '=', filters.level));
  if (filters.status) {
    conditions.push(
      filters.status.min === filters.status.max
        ? eb('t.status', '=', filters.status.min)
        : // Unary plus keeps a status class off the status index: walking the newest-first index
          // and testing each entry finds a first page without sorting the whole class.
          eb.and([eb(sql<number>`+${eb.ref('t.status')}`, '>=', filters.status.min), eb(sql<number>`+${eb.ref('t.status')}`, '<=', filters.status.max)]),
    );
  }
  if (filters.q) conditions.push(compileFilter(eb, filters.q, { sourceId }));
  // A primary-key range, so resolving a short id reads only the ids that begin with it.
  if (filters.idPrefix) conditions.push(eb('t.id', '>=', filters.idPrefix.min), eb('t.id', '<=', filters.idPrefix.max));
  return eb.and(conditions);
}

export const ENTRY_COLUMNS = [
  't.id', 't.status', 't.method', 't.level', 't.elapsed_time', 't.traffic_user_id', 't.traffic_source_id', 't.domain_id',
  't.pathname_id', 't.request_id', 't.response_id', 't.created_at', 't.protocol', 'd.value as domain', 'p.value as pathname',
] as const;

interface EntryRow {
  id: string; status: number; method: string; level: string; elapsed_time: number; traffic_user_id: string | null;
  traffic_source_id: string; domain_id: string; pathname_id: string; request_id: string; response_id: string;
  created_at: string; protocol: string; domain: string; pathname: string;
}

export const toEntry = (row: EntryRow): HttpTraffic => ({
  id: row.id,
  status: row.status,
  method: row.method,
  level: row.level as Level,
  elapsedTime: row.elapsed_time,
  ...(row.traffic_user_id ? { trafficUserId: row.traffic_user_id } : {}),
  trafficSourceId: row.traffic_source_id,
  domainId: row.domain_id,
  pathnameId: row.pathname_id,
  requestId: row.request_id,
  responseId: row.response_id,
  createdAt: row.created_at,
  domain: row.domain,
  pathname: row.pathname,
  protocol: row.protocol,
});

export function listTraffic(db: Db, sourceId: string, filters: TrafficFilters, page: PageQuery) {
  const base = db.selectFrom('http_traffic as t').where((eb) => trafficFilter(eb, sourceId, filters));
  return paginate(
    page,
    () => (rollupAnswers(filters) ? countFromRollup(db, sourceId, filters) : countRows(base)),
    async (limit, offset) => {
      const rows = await base
        .innerJoin('domains as d', 'd.id', 't.domain_id')
        .innerJoin('pathnames as p', 'p.id', 't.pathname_id')
        .select(ENTRY_COLUMNS)
        .orderBy('t.created_at', 'desc')
        .orderBy('t.id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute();
      return rows.map(toEntry);
    },
  );
}

const parseJson = (text: string | null): JsonValue => (text === null ? null : (JSON.parse(text) as JsonValue));

export async function getTrafficRecord(db: Db, sourceId: string, id: string): Promise<HttpTrafficRecord | undefined> {
  const row = await db
    .selectFrom('http_traffic as t')
    .innerJoin('domains as d', 'd.id', 't.domain_id')
    .innerJoin('pathnames as p', 'p.id', 't.pathname_id')
    .innerJoin('requests as rq', 'rq.id', 't.request_id')
    .innerJoin('responses as rs', 'rs.id', 't.response_id')
    .select([...ENTRY_COLUMNS, 'rq.headers as request_headers', 'rq.body as request_body', 'rq.query_params', 'rs.headers as response_headers', 'rs.body as response_body'])
    .where('t.id', '=', id)
    .where('t.traffic_source_id', '=', sourceId)
    .executeTakeFirst();
  if (!row) return undefined;
  const entry = toEntry(row);
  return {
    id: entry.id,
    status: entry.status,
    method: entry.method,
    level: entry.level,
    elapsedTime: entry.elapsedTime,
    createdAt: entry.createdAt,
    domain: entry.domain,
    pathname: entry.pathname,
    protocol: entry.protocol,
    trafficSourceId: entry.trafficSourceId,
    ...(entry.trafficUserId ? { trafficUserId: entry.trafficUserId } : {}),
    request: { headers: JSON.parse(row.request_headers), body: parseJson(row.request_body), queryParams: JSON.parse(row.query_params) },
    response: { headers: JSON.parse(row.response_headers), body: parseJson(row.response_body) },
  };
}

export async function trafficEntryExists(db: Executor, sourceId: string, id: string): Promise<boolean> {
  const row = await db.selectFrom('http_traffic').select('id').where('id', '=', id).where('traffic_source_id', '=', sourceId).executeTakeFirst();
  return row !== undefined;
}

/** Found or created; `onConflict` keeps it right when two writers race (PostgreSQL). */
export async function findOrCreateDomain(trx: Executor, sourceId: string, value: string, now: string): Promise<string> {
  const found = await trx.selectFrom('domains').select('id').where('traffic_source_id', '=', sourceId).where('value', '=', value).executeTakeFirst();
  if (found) return found.id;
  await trx
    .insertInto('domains')
    .values({ id: newId(), traffic_source_id: sourceId, value, created_at: now })
    .onConflict((oc) => oc.columns(['traffic_source_id', 'value']).doNothing())
    .execute();
  const row = await trx.selectFrom('domains').select('id').where('traffic_source_id', '=', sourceId).where('value', '=', value).executeTakeFirstOrThrow();
  return row.id;
}

export async function findOrCreatePathname(trx: Executor, sourceId: string, domainId: string, value: string, now: string): Promise<string> {
  const found = await trx.selectFrom('pathnames').select('id').where('domain_id', '=', domainId).where('value', '=', value).executeTakeFirst();
  if (found) return found.id;
  await trx
    .insertInto('pathnames')
    .values({ id: newId(), traffic_source_id: sourceId, domain_id: domainId, value, created_at: now })
    .onConflict((oc) => oc.columns(['domain_id', 'value']).doNothing())
    .execute();
  const row = await trx.selectFrom('pathnames').select('id').where('domain_id', '=', domainId).where('value', '=', value).executeTakeFirstOrThrow();
  return row.id;
}

export function listDomains(db: Db, sourceId: string, page: PageQuery) {
  const base = db.selectFrom('domains').where('traffic_source_id', '=', sourceId);
  return paginate(
    page,
    () => countRows(base),
    async (limit, offset) =>
      (await base.select(['id', 'value', 'created_at']).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute()).map(
        (r) => ({ id: r.id, value: r.value, createdAt: r.created_at }),
      ),
  );
}

export function listPathnames(db: Db, sourceId: string, domainId: string | undefined, page: PageQuery) {
  let base = db.selectFrom('pathnames').where('traffic_source_id', '=', sourceId);
  if (domainId) base = base.where('domain_id', '=', domainId);
  return paginate(
    page,
    () => countRows(base),
    async (limit, offset) =>
      (await base.select(['id', 'value', 'domain_id', 'created_at']).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute()).map(
        (r) => ({ id: r.id, value: r.value, domainId: r.domain_id, createdAt: r.created_at }),
      ),
  );
}
