import { Text } from 'ink';

export interface ScrolledLinesProps {
  readonly lines: readonly string[];
  readonly offset: number;
  readonly rows: number;
}

/** The window of `rows` lines from `offset`; blank lines keep their height. */
export function ScrolledLines({ lines, offset, rows }: ScrolledLinesProps) {
  return (
    <>
      {lines.slice(offset, offset + rows).map((line, i) => (
        <Text key={offset + i} wrap="truncate">
          {line || ' '}
        </Text>
      ))}
    </>
  );
}
