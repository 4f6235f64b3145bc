import { Box, Text } from 'ink';
import type { StreamStatus } from '../api.js';
import { formatLatency } from '@tapline/shared';
import type { Tone } from '../entry-columns.js';
import type { StatsSnapshot } from '../live-stats.js';
import { usePaint } from '../palette.js';

export interface HeaderBarProps {
  readonly source: string;
  readonly stats: StatsSnapshot;
  readonly status: StreamStatus;
  readonly following: boolean;
  readonly width: number;
}

function connection(status: StreamStatus, following: boolean): { text: string; color: Tone } {
  if (status.state === 'reconnecting') return { text: '◌ reconnecting', color: 'yellow' };
  if (status.state === 'connecting') return { text: '◌ connecting', color: 'gray' };
  return following ? { text: '● following', color: 'green' } : { text: '❚❚ paused', color: 'yellow' };
}

const ms = (v: number | null) => (v === null ? '-' : formatLatency(v));

/** One line: source, connection, req/s, counts by level and p50/p95 latency over the last minute. */
export function HeaderBar({ source, stats, status, following, width }: HeaderBarProps) {
  const paint = usePaint();
  const conn = connection(status, following);
  const rate = stats.perSecond >= 10 ? stats.perSecond.toFixed(0) : stats.perSecond.toFixed(1);
  return (
    <Box width={width}>
      <Text wrap="truncate">
        <Text bold>tapline</Text> <Text color={paint('cyan')}>{source}</Text> <Text color={paint(conn.color)}>{conn.text}</Text>
        {'  '}
        {rate} req/s{'  '}
        <Text color={paint('green')}>INFO {stats.levels.INFO}</Text> <Text color={paint('yellow')}>WARN {stats.levels.WARNING}</Text>{' '}
        <Text color={paint('red')}>FATAL {stats.levels.FATAL}</Text>
        {'  '}p50 {ms(stats.p50)} p95 {ms(stats.p95)}
      </Text>
    </Box>
  );
}
