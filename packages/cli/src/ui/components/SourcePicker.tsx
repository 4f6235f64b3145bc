import type { TrafficSource } from '@tapline/shared';
import { Box, Text } from 'ink';
import type { UiApi } from '../api.js';
import { fit } from '../entry-columns.js';
import { useAsync } from '../hooks/useAsync.js';
import { useKeymap } from '../hooks/useKeymap.js';
import { useSelection } from '../hooks/useSelection.js';
import { usePaint } from '../palette.js';

export interface SourcePickerProps {
  readonly api: UiApi;
  readonly width: number;
  readonly rows: number;
  readonly onPick: (source: TrafficSource) => void;
}

/** Shown when `tapline ui` is started without a source. */
export function SourcePicker({ api, rows, onPick }: SourcePickerProps) {
  const paint = usePaint();
  const sources = useAsync(() => api.listSources(), [api]);
  const data = sources.data ?? [];
  const listRows = Math.max(1, rows - 2);
  const { selected, top, keys } = useSelection(data.length, listRows);
  useKeymap({
    ...keys,
    enter: () => {
      const source = data[selected];
      if (source) onPick(source);
    },
  });
  return (
    <Box flexDirection="column" height={rows}>
      <Text bold>Pick a traffic source</Text>
      {sources.loading && !sources.data ? <Text dimColor>loading…</Text> : null}
      {sources.error ? <Text color={paint('red')}>Could not list traffic sources: {sources.error}</Text> : null}
      {!sources.loading && !sources.error && data.length === 0 ? (
        <Text dimColor>No traffic sources yet. Create one with `tapline sources add &lt;name&gt; &lt;domain&gt;`.</Text>
      ) : null}
      {data.slice(top, top + listRows).map((s, i) => (
        <Text key={s.id} inverse={top + i === selected} wrap="truncate">
          {fit(s.name, 24).padEnd(24)} <Text color={paint('cyan')}>{fit(s.trafficDomain, 30).padEnd(30)}</Text>{' '}
          <Text dimColor>{s.id}</Text>
        </Text>
      ))}
      <Text> </Text>
    </Box>
  );
}
