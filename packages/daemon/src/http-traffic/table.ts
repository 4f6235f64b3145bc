import type { HttpMethod, Level, Protocol } from '@tapline/shared';
import type { ColumnType, Insertable, Selectable } from 'kysely';

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
  /**
   * The stream's order (docs/decisions.md §9.7), taken from `stream_sequence` at commit. A
   * bigint: PostgreSQL's driver reads it as text, so readers convert it with `Number`.
   */
  stream_seq: StreamSeq;
}

export type StreamSeq = ColumnType<number | string, number, number>;

/** One row, `traffic`: the last `stream_seq` handed out. */
export interface StreamSequenceTable {
  name: string;
  value: StreamSeq;
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
  stream_sequence: StreamSequenceTable;
}
