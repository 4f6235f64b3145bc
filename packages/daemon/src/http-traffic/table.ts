import type { HttpMethod, Level, Protocol } from '@tapline/shared';
import type { ColumnType, Insertable, Selectable } from 'kysely';
import type { StoredPayload } from '../db/payload.js';

/**
 * The tables of recorded traffic. Columns carry the contract's unions, so rows need no casts on
 * their way to the wire. Timestamps are ISO 8601 UTC text with milliseconds: they sort as text
 * in every dialect. Headers, query and bodies are JSON text as stored by the database's payload
 * codec (db/payload.ts: compressed on SQLite); a null body is SQL NULL.
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

export interface HttpTrafficTable {
  id: string;
  traffic_source_id: string;
  domain_id: string;
  pathname_id: string;
  /** Null since compact storage: the wire's requestId and responseId are derived from `id` (exchange-id.ts exchangeIdOf). */
  request_id: string | null;
  response_id: string | null;
  status: number;
  method: HttpMethod;
  level: Level;
  protocol: Protocol;
  elapsed_time: number;
  traffic_user_id: string | null;
  created_at: string;
  /** The route template (`/users/:id`) when the client sent one; see migration 2026-11-24T0300. */
  route: string | null;
  /** The entry's template (route-stats/, migration 2026-11-27T0100-routes); null until the backfill reaches an older entry. */
  route_id: string | null;
  /**
   * The stream's order (docs/decisions.md §9.7), taken from `stream_sequence` at commit. A
   * bigint: PostgreSQL's driver reads it as text, so readers convert it with `Number`.
   */
  stream_seq: StreamSeq;
  /** The exchange (migration 2026-11-25T0100-compact-storage folded the requests and responses rows in). */
  request_headers: StoredPayload;
  request_body: StoredPayload | null;
  query_params: StoredPayload;
  response_headers: StoredPayload;
  response_body: StoredPayload | null;
}

/** Preset dictionaries of compressed payloads (db/payload-codec.ts), per source; ids are referenced from each value. */
export interface PayloadDictionariesTable {
  id: number;
  traffic_source_id: string;
  data: Uint8Array;
  created_at: string;
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

export type TrafficRow = Selectable<HttpTrafficTable>;
export type NewTrafficRow = Insertable<HttpTrafficTable>;
export type CountRow = Insertable<TrafficCountsTable>;

export interface HttpTrafficTables {
  domains: DomainsTable;
  pathnames: PathnamesTable;
  payload_dictionaries: PayloadDictionariesTable;
  http_traffic: HttpTrafficTable;
  traffic_counts: TrafficCountsTable;
  stream_sequence: StreamSequenceTable;
}
