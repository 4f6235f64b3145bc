import type { CoreLog } from '@tapline/shared';
import { Box, Text } from 'ink';
import { useState } from 'react';
import type { UiApi } from '../api.js';
import { clockTime, fit } from '../entry-columns.js';
import { useAsync } from '../hooks/useAsync.js';
import { useKeymap } from '../hooks/useKeymap.js';
import { useSelection } from '../hooks/useSelection.js';
import { CoreLogDetail } from './CoreLogDetail.js';
import { usePaint } from '../palette.js';

export interface CoreLogsViewProps {
  readonly api: UiApi;
  readonly sourceId: string;
  readonly width: number;
  readonly rows: number;
  readonly active: boolean;
  readonly onBack: () => void;
}

const PAGE = 200;

/** The source's core logs, newest first; Enter shows one with its stack. */
export function CoreLogsView({ api, sourceId, width, rows, active, onBack }: CoreLogsViewProps) {
  const paint = usePaint();
  const logs = useAsync(() => api.listCoreLogs(sourceId, 1, PAGE), [api, sourceId]);
  const [open, setOpen] = useState<CoreLog | null>(null);
  const data = logs.data?.data ?? [];
  const listRows = Math.max(1, rows - 1);
  const { selected, top, keys } = useSelection(data.length, listRows);

  useKeymap(
    {
      ...keys,
      enter: () => {
        const log = data[selected];
        if (log) setOpen(log);
      },
      escape: onBack,
      backspace: onBack,
    },
    active && !open,
  );

  if (open) return <CoreLogDetail log={open} width={width} rows={rows} active={active} onBack={() => setOpen(null)} />;
  const total = logs.data?.meta.total ?? 0;
  return (
    <Box flexDirection="column" height={rows}>
      <Text bold wrap="truncate">
        Core logs{' '}
        <Text dimColor>
          {logs.loading ? 'loading…' : `${total} in all${total > data.length ? `, newest ${data.length} shown` : ''}`}
        </Text>
      </Text>
      {logs.error ? <Text color={paint('red')}>Could not load core logs: {logs.error}</Text> : null}
      {!logs.loading && !logs.error && data.length === 0 ? <Text dimColor>No core logs for this source.</Text> : null}
      {data.slice(top, top + listRows).map((log, i) => (
        <Text key={log.id} inverse={top + i === selected} wrap="truncate">
          <Text dimColor>{clockTime(log.createdAt)}</Text>{' '}
          <Text color={paint('magenta')}>{fit(log.layer || '-', 12).padEnd(12)}</Text>{' '}
          <Text color={paint('cyan')}>{fit(log.source || '-', 14).padEnd(14)}</Text>{' '}
          {fit(log.title, Math.max(10, width - 42))}
        </Text>
      ))}
    </Box>
  );
}
