import { Box, Text } from 'ink';
import type { StreamStatus } from '../api.js';
import { formatLatency } from '@tapline/shared';
import type { StatsSnapshot } from '../live-stats.js';

export interface HeaderBarProps {
  readonly source: string;
  readonly stats: StatsSnapshot;
  readonly status: StreamStatus;
  readonly following: boolean;
  readonly width: number;
}

function connection(status: StreamStatus, following: boolean): { text: string; color: string } {
  if (status.state === 'reconnecting') return { text: '◌ reconnecting', color: 'yellow' };
  if (status.state === 'connecting') return { text: '◌ connecting', color: 'gray' };
  return following ? { text: '● following', color: 'green' } : { text: '❚❚ paused', color: 'yellow' };
}

const ms = (v: number | null) => (v === null ? '-' : formatLatency(v));

/** One line: source, connection, req/s, counts by level and p50/p95 latency over the last minute. */
export function HeaderBar({ source, stats, status, following, width }: HeaderBarProps) {
  const conn = connection(status, following);
  const rate = stats.perSecond >= 10 ? stats.perSecond.toFixed(0) : stats.perSecond.toFixed(1);
  return (
    <Box width={width}>
      <Text wrap="truncate">
        <Text bold>tapline</Text> <Text color="cyan">{source}</Text> <Text color={conn.color}>{conn.text}</Text>
        {'  '}
        {rate} req/s{'  '}
        <Text color="green">INFO {stats.levels.INFO}</Text> <Text color="yellow">WARN {stats.levels.WARNING}</Text>{' '}
        <Text color="red">FATAL {stats.levels.FATAL}</Text>
        {'  '}p50 {ms(stats.p50)} p95 {ms(stats.p95)}
      </Text>
    </Box>
  );
}
