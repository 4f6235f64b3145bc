import type { HttpMethod, Level, Protocol } from '@tapline/shared';
import type { Insertable, Selectable } from 'kysely';

/**
 * The tables of recorded traffic. Columns carry the contract's unions, so rows need no casts on
 * their way to the wire. Timestamps are ISO 8601 UTC text with milliseconds: they sort as text
 * in every dialect. Headers, query and bodies are JSON text; a null body is SQL NULL.
 */
export interface DomainsTable {
  id: string;
  traffic_source_id: string;
  value: string;
  created_at: string;
}

export interface PathnamesTable {
  id: string;
  traffic_source_id: string;
  domain_id: string;
  value: string;
  created_at: string;
}

export interface RequestsTable {
  id: string;
  traffic_source_id: string;
  headers: string;
  body: string | null;
  query_params: string;
}

export interface ResponsesTable {
  id: string;
  traffic_source_id: string;
  headers: string;
  body: string | null;
}

export interface HttpTrafficTable {
  id: string;
  traffic_source_id: string;
  domain_id: string;
  pathname_id: string;
  request_id: string;
  response_id: string;
  status: number;
  method: HttpMethod;
  level: Level;
  protocol: Protocol;
  elapsed_time: number;
  traffic_user_id: string | null;
  created_at: string;
  /** The route template (`/users/:id`) when the client sent one; see migration 2026-11-24T0300. */
  route: string | null;
}

/** Rollup of http_traffic kept in the ingest transaction, so `meta.total` never scans millions. */
export interface TrafficCountsTable {
  traffic_source_id: string;
  pathname_id: string;
  domain_id: string;
  method: HttpMethod;
  status: number;
  level: Level;
  count: number;
}

export type RequestRow = Insertable<RequestsTable>;
export type ResponseRow = Insertable<ResponsesTable>;
export type TrafficRow = Selectable<HttpTrafficTable>;
export type NewTrafficRow = Insertable<HttpTrafficTable>;
export type CountRow = Insertable<TrafficCountsTable>;

export interface HttpTrafficTables {
  domains: DomainsTable;
  pathnames: PathnamesTable;
  requests: RequestsTable;
  responses: ResponsesTable;
  http_traffic: HttpTrafficTable;
  traffic_counts: TrafficCountsTable;
}
