import { resolveRoute } from '@tapline/shared/lean';
import type { HttpTraffic, HttpTrafficRecord, JsonValue, PageQuery, TrafficFilters } from '@tapline/shared';
import { type ExpressionBuilder, sql } from 'kysely';
import type { SqlDialect } from '../db/dialect.js';
import type { Db, Executor, Store } from '../db/open.js';
import type { DB } from '../db/schema.js';
import { newId } from '../clock.js';
import { countRows, newestFirst, type Page, paginate } from '../http/pagination.js';
import { compileFilter } from './filter-sql.js';
import { exchangeIdOf } from './exchange-id.js';
import type { HttpTrafficTable, TrafficRow } from './table.js';

/**
 * Every SQL statement of recorded traffic: the list and its filters, one record, the names a
 * record is filed under, the writes of an ingest, the count rollup (the stream's reads are
 * in stream/stream-repo.ts). Rows become wire objects here and nowhere else (toEntry, toRecord).
 */
type TrafficEb = ExpressionBuilder<DB & { t: HttpTrafficTable }, 't'>;

/** The documented filters, combined with AND; dates inclusive. Values are always bound. */
export function trafficFilter(eb: TrafficEb, dialect: SqlDialect, sourceId: string, filters: TrafficFilters) {
  // With an id prefix the primary-key range is the narrowest index; the source's column is hidden
  // from the planner, which would otherwise walk every entry of a per-source index.
  const conditions = [
    filters.idPrefix
      ? eb(
          dialect.unindexed(eb.ref('t.traffic_source_id')),
          '=',
          sql<string>`${dialect.stored.encode('traffic_source_id', sourceId)}`,
        )
      : eb('t.traffic_source_id', '=', sourceId),
  ];
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
        : // The column itself, which the newest-first index carries: PostgreSQL tests it on the
          // index entry and reads the row only for a match, not every row it walks
          // (docs/performance.md#reads-and-indexes).
          eb.and([eb('t.status', '>=', filters.status.min), eb('t.status', '<=', filters.status.max)]),
    );
  }
  if (filters.route) {
    const template = filters.route;
    conditions.push(
      eb(
        't.route_id',
        'in',
        eb
          .selectFrom('routes as fr')
          .select('fr.id')
          .where('fr.traffic_source_id', '=', sourceId)
          .where('fr.template', '=', template),
      ),
    );
  }
  if (filters.q) conditions.push(compileFilter(eb, filters.q, { sourceId, dialect }));
  // A primary-key range, so resolving a short id reads only the ids that begin with it.
  if (filters.idPrefix) conditions.push(eb('t.id', '>=', filters.idPrefix.min), eb('t.id', '<=', filters.idPrefix.max));
  return eb.and(conditions);
}

/** The exchange's columns, stored by the database's payload codec (db/payload-codec.ts). */
export const PAYLOAD_COLUMNS = [
  'request_headers',
  'request_body',
  'query_params',
  'response_headers',
  'response_body',
] as const;
type PayloadColumn = (typeof PAYLOAD_COLUMNS)[number];

const ENTRY_COLUMNS = [
  't.id',
  't.status',
  't.method',
  't.level',
  't.elapsed_time',
  't.traffic_user_id',
  't.traffic_source_id',
  't.domain_id',
  't.pathname_id',
  't.request_id',
  't.response_id',
  't.created_at',
  't.protocol',
  't.route',
  't.route_id',
  'd.value as domain',
  'p.value as pathname',
  'r.template as route_template',
] as const;

type EntryRow = Omit<TrafficRow, 'stream_seq' | PayloadColumn> & {
  domain: string;
  pathname: string;
  route_template: string | null;
};

/** The one row-to-wire mapper of an entry; `trafficUserId` is absent, never null, when there is none. */
export function toEntry(row: EntryRow): HttpTraffic {
  const entry: HttpTraffic = {
    id: row.id,
    status: row.status,
    method: row.method,
    level: row.level,
    elapsedTime: row.elapsed_time,
    trafficSourceId: row.traffic_source_id,
    domainId: row.domain_id,
    pathnameId: row.pathname_id,
    requestId: row.request_id ?? exchangeIdOf(row.id, 'request'),
    responseId: row.response_id ?? exchangeIdOf(row.id, 'response'),
    createdAt: row.created_at,
    domain: row.domain,
    pathname: row.pathname,
    protocol: row.protocol,
  };
  if (row.traffic_user_id) entry.trafficUserId = row.traffic_user_id;
  entry.route = routeOf(row);
  return entry;
}

/** An entry's route template; one the route backfill has not reached yet shows the template it will be given. */
export const routeOf = (row: Pick<EntryRow, 'pathname' | 'route' | 'route_template'>): string =>
  row.route_template ?? resolveRoute(row.pathname, row.route).template;

/** The stored exchange, as a single compose answers it and as GET of one entry reads it back. */
export type Exchange = Pick<HttpTrafficRecord, 'request' | 'response'>;

/** The one entry-to-record mapper: the spec's HttpTrafficRecord with the extensions. */
export function toRecord(entry: HttpTraffic, exchange: Exchange): HttpTrafficRecord {
  const { id, status, method, level, elapsedTime, createdAt, domain, pathname, protocol, trafficSourceId } = entry;
  const record: HttpTrafficRecord = {
    id,
    status,
    method,
    level,
    elapsedTime,
    createdAt,
    domain,
    pathname,
    protocol,
    trafficSourceId,
    ...exchange,
  };
  if (entry.trafficUserId) record.trafficUserId = entry.trafficUserId;
  if (entry.route !== undefined) record.route = entry.route;
  return record;
}

/** Entries with their names joined: every read of entries starts here. */
export const entries = (db: Executor) =>
  db
    .selectFrom('http_traffic as t')
    .innerJoin('domains as d', 'd.id', 't.domain_id')
    .innerJoin('pathnames as p', 'p.id', 't.pathname_id')
    .leftJoin('routes as r', 'r.id', 't.route_id')
    .select(ENTRY_COLUMNS);

export function listTraffic(
  { db, dialect }: Store,
  sourceId: string,
  filters: TrafficFilters,
  page: PageQuery,
): Promise<Page<HttpTraffic>> {
  const base = db.selectFrom('http_traffic as t').where((eb) => trafficFilter(eb, dialect, sourceId, filters));
  return paginate(
    page,
    () => (rollupAnswers(filters) ? countFromRollup(db, sourceId, filters) : countRows(base)),
    async (limit, offset) => {
      const rows = await entries(db)
        .where((eb) => trafficFilter(eb, dialect, sourceId, filters))
        .orderBy('t.created_at', 'desc')
        .orderBy('t.id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute();
      return rows.map(toEntry);
    },
  );
}

/** Stored JSON text back to a value; the text was written by JSON.stringify, so it parses. */
/* eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- the column holds JSON.stringify of a T, written by this repository;
   the compiler sees only a string column. */
export const parseJson = <T = JsonValue>(text: string): T => JSON.parse(text) as T;

/** Entries with their exchange as JSON text, decoded by the database (see recordOf). */
export const recordRows = ({ db, dialect }: { db: Executor; dialect: SqlDialect }) =>
  entries(db).select([
    dialect.payloadText(sql.ref('t.request_headers')).as('request_headers'),
    sql<string | null>`${dialect.payloadText(sql.ref('t.request_body'))}`.as('request_body'),
    dialect.payloadText(sql.ref('t.query_params')).as('query_params'),
    dialect.payloadText(sql.ref('t.response_headers')).as('response_headers'),
    sql<string | null>`${dialect.payloadText(sql.ref('t.response_body'))}`.as('response_body'),
  ]);

type RecordRow = EntryRow & {
  request_headers: string;
  request_body: string | null;
  query_params: string;
  response_headers: string;
  response_body: string | null;
};

/** The one row-to-wire mapper of a whole record. */
export function recordOf(row: RecordRow): HttpTrafficRecord {
  return toRecord(toEntry(row), {
    request: {
      headers: parseJson(row.request_headers),
      body: row.request_body === null ? null : parseJson(row.request_body),
      queryParams: parseJson(row.query_params),
    },
    response: {
      headers: parseJson(row.response_headers),
      body: row.response_body === null ? null : parseJson(row.response_body),
    },
  });
}

export async function getTrafficRecord(
  store: Store,
  sourceId: string,
  id: string,
): Promise<HttpTrafficRecord | undefined> {
  const row = await recordRows(store)
    .where('t.id', '=', id)
    .where('t.traffic_source_id', '=', sourceId)
    .executeTakeFirst();
  return row && recordOf(row);
}

export async function trafficEntryExists(db: Executor, sourceId: string, id: string): Promise<boolean> {
  const row = await db
    .selectFrom('http_traffic')
    .select('id')
    .where('id', '=', id)
    .where('traffic_source_id', '=', sourceId)
    .executeTakeFirst();
  return row !== undefined;
}

/** Found or created; `onConflict` keeps it right when two writers race (PostgreSQL). */
export async function findOrCreateDomain(trx: Executor, sourceId: string, value: string, now: string): Promise<string> {
  const find = () =>
    trx.selectFrom('domains').select('id').where('traffic_source_id', '=', sourceId).where('value', '=', value);
  const found = await find().executeTakeFirst();
  if (found) return found.id;
  await trx
    .insertInto('domains')
    .values({ id: newId(), traffic_source_id: sourceId, value, created_at: now })
    .onConflict((oc) => oc.columns(['traffic_source_id', 'value']).doNothing())
    .execute();
  return (await find().executeTakeFirstOrThrow()).id;
}

export async function findOrCreatePathname(
  trx: Executor,
  sourceId: string,
  domainId: string,
  value: string,
  now: string,
): Promise<string> {
  const find = () =>
    trx.selectFrom('pathnames').select('id').where('domain_id', '=', domainId).where('value', '=', value);
  const found = await find().executeTakeFirst();
  if (found) return found.id;
  await trx
    .insertInto('pathnames')
    .values({ id: newId(), traffic_source_id: sourceId, domain_id: domainId, value, created_at: now })
    .onConflict((oc) => oc.columns(['domain_id', 'value']).doNothing())
    .execute();
  return (await find().executeTakeFirstOrThrow()).id;
}

/** The rollup answers any combination of the filters it has columns for; dates and `q` do not. */
const rollupAnswers = (filters: TrafficFilters): boolean =>
  !filters.startDate && !filters.endDate && !filters.q && !filters.idPrefix && !filters.route;

/** `meta.total` from the rollup: the same filters as trafficFilter, over the counted keys. */
async function countFromRollup(db: Db, sourceId: string, filters: TrafficFilters): Promise<number> {
  let query = db
    .selectFrom('traffic_counts')
    .select((eb) => eb.fn.sum<number | string | null>('count').as('total'))
    .where('traffic_source_id', '=', sourceId);
  if (filters.domainId) query = query.where('domain_id', '=', filters.domainId);
  if (filters.pathnameId) query = query.where('pathname_id', '=', filters.pathnameId);
  if (filters.method) query = query.where('method', '=', filters.method);
  if (filters.level) query = query.where('level', '=', filters.level);
  if (filters.status) query = query.where('status', '>=', filters.status.min).where('status', '<=', filters.status.max);
  const row = await query.executeTakeFirstOrThrow();
  return Number(row.total ?? 0);
}

export function listDomains(db: Db, sourceId: string, page: PageQuery) {
  const base = db.selectFrom('domains').where('traffic_source_id', '=', sourceId);
  return newestFirst(
    page,
    base,
    (q) => q.select(['id', 'value', 'created_at']),
    (r) => ({ id: r.id, value: r.value, createdAt: r.created_at }),
  );
}

export function listPathnames(db: Db, sourceId: string, domainId: string | undefined, page: PageQuery) {
  let base = db.selectFrom('pathnames').where('traffic_source_id', '=', sourceId);
  if (domainId) base = base.where('domain_id', '=', domainId);
  return newestFirst(
    page,
    base,
    (q) => q.select(['id', 'value', 'domain_id', 'created_at']),
    (r) => ({ id: r.id, value: r.value, domainId: r.domain_id, createdAt: r.created_at }),
  );
}
