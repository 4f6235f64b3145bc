import type { RouteOrigin } from '@tapline/shared';
import type { Selectable } from 'kysely';

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

export interface RouteStatsTables {
  routes: RoutesTable;
}
