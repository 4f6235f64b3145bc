/** `--no-stats`, `--stats-retention` (docs/statistics.md). */
export interface StatsConfig {
  /** False (`--no-stats`): no minute rows are written; `GET /stats` answers from what is there. */
  readonly enabled: boolean;
  /** Minute rows older than this go, whatever `--retention` does to entries; null: kept for ever. */
  readonly retentionMs: number | null;
}

export const DEFAULT_STATS_RETENTION = '400d';
export const DEFAULT_STATS: StatsConfig = { enabled: true, retentionMs: 400 * 86_400_000 };
