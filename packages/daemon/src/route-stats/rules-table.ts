import type { ColumnType } from 'kysely';

/** A source's route rules (migration 2026-11-27T0500-route-rules). */
export interface RouteRulesTable {
  id: string;
  traffic_source_id: string;
  /** OpenAPI spelling, normalised (`/products/{slug}`); unique per source. */
  template: string;
  created_at: string;
}

/** The reassignment job's progress for one source (route-stats/reassign.ts). */
export interface RouteReassignmentsTable {
  traffic_source_id: string;
  /** The last entry id looked at, as text on both engines; null: from the first. */
  after_id: string | null;
  generation: ColumnType<number, number | undefined, number>;
}

export interface RouteRuleTables {
  route_rules: RouteRulesTable;
  route_reassignments: RouteReassignmentsTable;
}
