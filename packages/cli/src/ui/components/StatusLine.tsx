import { Text } from 'ink';
import type { Tone as Color } from '../entry-columns.js';
import { usePaint } from '../palette.js';

export type Tone = 'info' | 'warn' | 'error';

export interface StatusLineProps {
  readonly text: string;
  readonly tone?: Tone;
}

const COLORS: Record<Tone, Color> = { info: 'cyan', warn: 'yellow', error: 'red' };

/** The one line where errors and notices appear: short messages, never stack traces. */
export function StatusLine({ text, tone = 'info' }: StatusLineProps) {
  const paint = usePaint();
  return (
    <Text color={paint(COLORS[tone])} wrap="truncate">
      {text || ' '}
    </Text>
  );
}
