import { Box, Text } from 'ink';
import { HELP } from '../keys.js';
import { usePaint } from '../palette.js';

export interface HelpViewProps {
  readonly rows: number;
}

export function HelpView({ rows }: HelpViewProps) {
  const paint = usePaint();
  const lines: { key: string; head?: string; keys?: string; does?: string }[] = [];
  for (const [title, keys] of HELP) {
    lines.push({ key: title, head: title });
    for (const k of keys) lines.push({ key: `${title}:${k.keys}`, keys: k.keys, does: k.does });
  }
  return (
    <Box flexDirection="column" height={rows}>
      {lines.slice(0, rows).map((l) =>
        l.head ? (
          <Text key={l.key} bold>
            {l.head}
          </Text>
        ) : (
          <Text key={l.key} wrap="truncate">
            {'  '}
            <Text color={paint('cyan')}>{(l.keys ?? '').padEnd(16)}</Text>
            {l.does}
          </Text>
        ),
      )}
    </Box>
  );
}
