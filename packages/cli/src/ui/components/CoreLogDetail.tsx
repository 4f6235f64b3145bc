import type { CoreLog } from '@tapline/shared';
import { Box, Text } from 'ink';
import { useMemo } from 'react';
import { useKeymap } from '../hooks/useKeymap.js';
import { useScroll } from '../hooks/useScroll.js';
import { wrapLine } from '../record-lines.js';
import { ScrolledLines } from './ScrolledLines.js';
import { usePaint } from '../palette.js';

export interface CoreLogDetailProps {
  readonly log: CoreLog;
  readonly width: number;
  readonly rows: number;
  readonly active: boolean;
  readonly onBack: () => void;
}

/** One core log: title, where it happened, description and stack, scrollable. */
export function CoreLogDetail({ log, width, rows, active, onBack }: CoreLogDetailProps) {
  const paint = usePaint();
  const lines = useMemo(() => {
    const text = [
      `${log.createdAt}  layer ${log.layer || '-'}  source ${log.source || '-'}${log.httpTrafficId ? `  entry ${log.httpTrafficId}` : ''}`,
      '',
      ...(log.description ? log.description.split('\n') : ['(no description)']),
      '',
      'Stack',
      ...(log.stack ? log.stack.split('\n') : ['(no stack)']),
    ];
    return text.flatMap((l) => wrapLine(l, width));
  }, [log, width]);
  const bodyRows = Math.max(1, rows - 1);
  const scroll = useScroll(lines.length, bodyRows);
  useKeymap({ ...scroll.keys, escape: onBack, backspace: onBack }, active);
  return (
    <Box flexDirection="column" height={rows}>
      <Text bold color={paint('red')} wrap="truncate">
        {log.title}
      </Text>
      <ScrolledLines lines={lines} offset={scroll.offset} rows={bodyRows} />
    </Box>
  );
}
