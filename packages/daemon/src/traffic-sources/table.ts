import type { Selectable } from 'kysely';

export interface TrafficSourcesTable {
  id: string;
  user_id: string;
  name: string;
  traffic_domain: string;
  created_at: string;
  updated_at: string;
}

export type TrafficSourceRow = Selectable<TrafficSourcesTable>;

export interface TrafficSourceTables {
  traffic_sources: TrafficSourcesTable;
}
