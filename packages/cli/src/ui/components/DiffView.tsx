import { Box, Text } from 'ink';
import { createColors } from 'picocolors';
import { useMemo } from 'react';
import { diffRecords, type Difference, type HttpTraffic } from '@tapline/shared';
import { describeExchange, diffLines } from '../../diff/render.js';
import type { UiApi } from '../api.js';
import type { Tone } from '../entry-columns.js';
import { useAsync } from '../hooks/useAsync.js';
import { useKeymap } from '../hooks/useKeymap.js';
import { useScroll } from '../hooks/useScroll.js';
import { usePaint } from '../palette.js';

export interface DiffViewProps {
  readonly api: UiApi;
  readonly sourceId: string;
  /** The marked entry (A) and the selected one (B). */
  readonly a: HttpTraffic;
  readonly b: HttpTraffic;
  readonly width: number;
  readonly rows: number;
  readonly active: boolean;
  readonly onBack: () => void;
}

interface Line {
  readonly text: string;
  readonly dim?: boolean;
  readonly tone?: Tone;
}

const TONE: Readonly<Record<Difference['kind'], Tone>> = { changed: 'yellow', added: 'green', removed: 'red' };
const plain = createColors(false);

/** `tapline traffic diff` in the UI: the marked entry against the selected one, scrollable. */
export function DiffView({ api, sourceId, a, b, width, rows, active, onBack }: DiffViewProps) {
  const paint = usePaint();
  const records = useAsync(
    () => Promise.all([api.getTraffic(sourceId, a.id), api.getTraffic(sourceId, b.id)]),
    [api, sourceId, a.id, b.id],
  );
  const lines = useMemo((): Line[] => {
    if (records.error) return [{ text: `Could not load the records: ${records.error}` }];
    if (!records.data) return [{ text: 'Loading…' }];
    const [ra, rb] = records.data;
    const differences = diffRecords(ra, rb);
    const texts = diffLines(differences, { colors: plain, width });
    return [
      { text: describeExchange('A', ra), dim: true },
      { text: describeExchange('B', rb), dim: true },
      { text: '' },
      ...(differences.length
        ? differences.map((d, i) => ({ text: texts[i] ?? '', tone: TONE[d.kind] }))
        : [{ text: 'no differences (apart from id and time)' }]),
    ];
  }, [records.data, records.error, width]);
  const bodyRows = Math.max(1, rows - 1);
  const scroll = useScroll(lines.length, bodyRows);
  useKeymap({ ...scroll.keys, escape: onBack, backspace: onBack }, active);

  return (
    <Box flexDirection="column" height={rows}>
      <Text bold wrap="truncate">
        Diff: marked (A) against selected (B)
      </Text>
      {lines.slice(scroll.offset, scroll.offset + bodyRows).map((line, i) => (
        <Text key={scroll.offset + i} wrap="truncate" dimColor={line.dim === true} color={paint(line.tone)}>
          {line.text || ' '}
        </Text>
      ))}
    </Box>
  );
}
