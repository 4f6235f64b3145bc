import type { StatsGroup } from '@tapline/shared';
import { Box, Text } from 'ink';
import { createColors } from 'picocolors';
import { useContext, useEffect, useState } from 'react';
import { SORTS, sortGroups, type StatsSort, statsTable } from '../../commands/stats.js';
import type { UiApi } from '../api.js';
import { useAsync } from '../hooks/useAsync.js';
import { useKeymap } from '../hooks/useKeymap.js';
import { useSelection } from '../hooks/useSelection.js';
import { PaletteContext, usePaint } from '../palette.js';

export interface RoutesViewProps {
  readonly api: UiApi;
  readonly sourceId: string;
  readonly width: number;
  readonly rows: number;
  readonly active: boolean;
  /** How often the numbers are asked for again while the view is open. */
  readonly refreshMs?: number;
  readonly onBack: () => void;
  /** Enter: the traffic of the selected route (and method). */
  readonly onOpen: (group: StatsGroup) => void;
}

/** The window the view shows; `tapline stats --since` answers any other. */
const SINCE = '1h';
const REFRESH_MS = 2000;

/**
 * `tapline stats` for the last hour as a live view: the command's own table (statsTable), asked
 * again every `refreshMs`, sorted by `s` (count, p95, p99, errors); Enter opens the route's traffic.
 */
export function RoutesView({
  api,
  sourceId,
  width,
  rows,
  active,
  refreshMs = REFRESH_MS,
  onBack,
  onOpen,
}: RoutesViewProps) {
  const paint = usePaint();
  const { color } = useContext(PaletteContext);
  const stats = useAsync(() => api.routeStats(sourceId, SINCE), [api, sourceId]);
  const [sort, setSort] = useState<StatsSort>('count');
  const { reload } = stats;
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(reload, refreshMs);
    return () => clearInterval(timer);
  }, [active, reload, refreshMs]);

  const groups = sortGroups(stats.data?.data ?? [], sort);
  const listRows = Math.max(1, rows - 2);
  const { selected, top, keys } = useSelection(groups.length, listRows);
  useKeymap(
    {
      ...keys,
      s: () => setSort((s) => SORTS[(SORTS.indexOf(s) + 1) % SORTS.length] ?? 'count'),
      enter: () => {
        const group = groups[selected];
        if (group) onOpen(group);
      },
      escape: onBack,
      backspace: onBack,
    },
    active,
  );

  const [header = '', ...lines] = stats.data
    ? statsTable({ colors: createColors(color), width }, { ...stats.data, data: groups }, { sort })
    : [];
  return (
    <Box flexDirection="column" height={rows}>
      <Text bold wrap="truncate">
        Routes <Text color={paint('cyan')}>last hour · sorted by {sort}</Text>
        <Text dimColor>{stats.data ? ` · ${groups.length}` : ' loading…'}</Text>
      </Text>
      {stats.error ? <Text color={paint('red')}>Could not load the statistics: {stats.error}</Text> : null}
      {stats.data && groups.length === 0 ? <Text dimColor>No traffic in the last hour.</Text> : null}
      {groups.length > 0 ? <Text wrap="truncate">{header}</Text> : null}
      {lines.slice(top, top + listRows).map((line, i) => (
        <Text
          key={`${groups[top + i]?.method ?? ''} ${groups[top + i]?.route ?? ''}`}
          inverse={top + i === selected}
          wrap="truncate"
        >
          {line}
        </Text>
      ))}
    </Box>
  );
}
