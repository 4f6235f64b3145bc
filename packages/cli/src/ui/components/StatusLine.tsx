import { Text } from 'ink';

export type Tone = 'info' | 'warn' | 'error';

export interface StatusLineProps {
  readonly text: string;
  readonly tone?: Tone;
}

const COLORS: Record<Tone, string> = { info: 'cyan', warn: 'yellow', error: 'red' };

/** The one line where errors and notices appear: short messages, never stack traces. */
export function StatusLine({ text, tone = 'info' }: StatusLineProps) {
  return (
    <Text color={COLORS[tone]} wrap="truncate">
      {text || ' '}
    </Text>
  );
}
