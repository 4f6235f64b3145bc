import { Box, Text } from 'ink';
import { formatLatency } from '@tapline/shared';
import type { Tone } from '../entry-columns.js';
import type { FeedStatus } from '../hooks/useTrafficStream.js';
import type { StatsSnapshot } from '../live-stats.js';
import { usePaint } from '../palette.js';

export interface HeaderBarProps {
  readonly source: string;
  readonly stats: StatsSnapshot;
  readonly status: FeedStatus;
  /** The table takes new entries at the top (false when paused, scrolled away or a record is open). */
  readonly following: boolean;
  readonly width: number;
  /** Alert rules of the source firing now; 0 (or not known yet) shows nothing. */
  readonly firing?: number;
}

/**
 * What the live table is doing, said only when true: "following" needs a live stream and a table
 * that takes new entries; a stream that is down says so whatever the table does.
 */
const CONNECTION: Readonly<
  Record<Exclude<FeedStatus['state'], 'live'> | 'following' | 'paused', { readonly text: string; readonly color: Tone }>
> = {
  connecting: { text: '◌ connecting…', color: 'gray' },
  reconnecting: { text: '○ reconnecting…', color: 'yellow' },
  failed: { text: '✕ not following', color: 'red' },
  following: { text: '● following', color: 'green' },
  paused: { text: '❚❚ paused', color: 'yellow' },
};

const connection = (status: FeedStatus, following: boolean) =>
  CONNECTION[status.state === 'live' ? (following ? 'following' : 'paused') : status.state];

const ms = (v: number | null) => (v === null ? '-' : formatLatency(v));

/**
 * One line: source, connection, the alerts firing (only when some are, right after the connection
 * so that a narrow terminal cuts the latencies first), req/s, counts by level and p50/p95 latency
 * over the last minute.
 */
export function HeaderBar({ source, stats, status, following, width, firing = 0 }: HeaderBarProps) {
  const paint = usePaint();
  const conn = connection(status, following);
  const rate = stats.perSecond >= 10 ? stats.perSecond.toFixed(0) : stats.perSecond.toFixed(1);
  return (
    <Box width={width}>
      <Text wrap="truncate">
        <Text bold>tapline</Text> <Text color={paint('cyan')}>{source}</Text>{' '}
        <Text color={paint(conn.color)}>{conn.text}</Text>
        {firing > 0 ? (
          <Text bold color={paint('red')}>
            {'  '}▲ {firing} alert{firing === 1 ? '' : 's'} firing
          </Text>
        ) : null}
        {'  '}
        {rate} req/s{'  '}
        <Text color={paint('green')}>INFO {stats.levels.INFO}</Text>{' '}
        <Text color={paint('yellow')}>WARN {stats.levels.WARNING}</Text>{' '}
        <Text color={paint('red')}>FATAL {stats.levels.FATAL}</Text>
        {'  '}p50 {ms(stats.p50)} p95 {ms(stats.p95)}
      </Text>
    </Box>
  );
}
