import type { HttpMethod, RouteOrigin } from '@tapline/shared';
import type { ColumnType, Selectable } from 'kysely';

/** A source's route templates (migration 2026-11-27T0100-routes); `http_traffic.route_id` names one. */
export interface RoutesTable {
  id: string;
  traffic_source_id: string;
  /** OpenAPI spelling, normalised (`/users/{id}`); unique per source. */
  template: string;
  /** The strongest way any entry reached it: `sent` > `rule` > `inferred`. */
  origin: RouteOrigin;
  created_at: string;
}

export type RouteRow = Selectable<RoutesTable>;

/** A bigint: PostgreSQL's driver reads it as text, so readers convert it with `Number`. */
type Big = ColumnType<number | string, number | undefined, number>;
/** A column with a default, so the empty row made to be locked leaves it out. */
type Defaulted<T> = ColumnType<T, T | undefined, T>;

/** One minute of one source, route, method, domain and status class (migration 2026-11-27T0200-route-stats). */
export interface RouteStatsTable {
  traffic_source_id: string;
  /** The minute's start, ISO 8601 UTC with milliseconds (`2026-05-05T10:07:00.000Z`), of the entries' `createdAt`. */
  minute: string;
  route_id: string;
  method: HttpMethod;
  domain_id: string;
  /** 1 for 1xx … 5 for 5xx. */
  status_class: number;
  count: Big;
  /** Milliseconds. */
  latency_max: Defaulted<number>;
  latency_sum: Defaulted<number>;
  request_bytes: Big;
  response_bytes: Big;
  /** DDSketch of the latencies (route-stats/sketch.ts); null only in a row made to be locked and not yet filled. */
  sketch: Defaulted<Uint8Array | null>;
}

/**
 * An hour (`span` 60) or a UTC day (`span` 1440) of the same numbers, written with the minute rows
 * in the ingest transaction (migration 2026-11-28T0100-route-rollups, docs/decisions.md §21.5).
 */
export interface RouteRollupsTable extends Omit<RouteStatsTable, 'minute'> {
  span: number;
  /** The bucket's start, ISO 8601 UTC with milliseconds (`2026-05-05T10:00:00.000Z`). */
  start: string;
}

/**
 * A source's counter of late writes (migration 2026-11-29T0100-stats-epochs): raised by a write
 * that changes numbers older than the last few minutes, so that no daemon answers from what it
 * remembers of them (closed-blocks.ts). No row: 0.
 */
export interface RouteStatsEpochsTable {
  traffic_source_id: string;
  epoch: Big;
}

export interface RouteStatsTables {
  routes: RoutesTable;
  route_stats: RouteStatsTable;
  route_rollups: RouteRollupsTable;
  route_stats_epochs: RouteStatsEpochsTable;
}
