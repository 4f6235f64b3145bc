import type { Selectable } from 'kysely';

export interface CoreLogsTable {
  id: string;
  traffic_source_id: string;
  http_traffic_id: string | null;
  title: string;
  description: string;
  source: string;
  layer: string;
  stack: string;
  created_at: string;
}

export type CoreLogRow = Selectable<CoreLogsTable>;

export interface CoreLogTables {
  core_logs: CoreLogsTable;
}
