import { parseRetentionDuration } from '../retention/parse-flags.js';
import type { StatsConfig } from './options.js';

/**
 * Apart from options.ts, as retention keeps its own parse-flags.ts: config.ts imports the options'
 * types and defaults, and stays a leaf.
 */
export function parseStats(flags: { stats: boolean; statsRetention: string }): StatsConfig {
  return { enabled: flags.stats, retentionMs: parseRetentionDuration('--stats-retention', flags.statsRetention, true) };
}
