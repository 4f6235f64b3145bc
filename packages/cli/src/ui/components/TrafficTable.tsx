import type { HttpTraffic } from '@tapline/shared';
import { Box, Text } from 'ink';
import { CELL_WIDTHS as W, entryCells, fit, latencyTone, levelTone, methodTone, statusTone } from '../entry-columns.js';
import { usePaint } from '../palette.js';

export interface TrafficTableProps {
  /** The visible rows only, newest first. */
  readonly entries: readonly HttpTraffic[];
  /** Index into `entries` of the selected row, or -1. */
  readonly selected: number;
  readonly width: number;
  readonly rows: number;
  readonly emptyText: string;
  /** The entry marked with `m`, if any: its row shows MARK in the gutter. */
  readonly markedId?: string | undefined;
}

/** Shown before the marked entry's time; a shape, not a colour, so NO_COLOR shows it too. */
export const MARK = '◆';
const GUTTER = 2;
const FIXED = GUTTER + W.time + W.method + W.status + W.level + W.latency + 5;

export function TrafficTable({ entries, selected, width, rows, emptyText, markedId }: TrafficTableProps) {
  const paint = usePaint();
  const target = Math.max(8, width - FIXED - 1);
  return (
    <Box flexDirection="column" height={rows + 1}>
      <Text bold wrap="truncate">
        {`${' '.repeat(GUTTER)}${'TIME'.padEnd(W.time)} ${'METHOD'.padEnd(W.method)} ${'STS'.padEnd(W.status)} ${'LEVEL'.padEnd(W.level)} ${'LATENCY'.padStart(W.latency)} DOMAIN+PATH`}
      </Text>
      {entries.length === 0 ? <Text dimColor>{emptyText}</Text> : null}
      {entries.map((entry, i) => {
        const c = entryCells(entry);
        return (
          <Text key={entry.id} inverse={i === selected} wrap="truncate">
            <Text bold color={paint('magenta')}>
              {(entry.id === markedId ? MARK : '').padEnd(GUTTER)}
            </Text>
            <Text dimColor={i !== selected}>{c.time.padEnd(W.time)}</Text>{' '}
            <Text color={paint(methodTone(entry.method))}>{c.method.padEnd(W.method)}</Text>{' '}
            <Text color={paint(statusTone(entry.status))}>{c.status.padEnd(W.status)}</Text>{' '}
            <Text color={paint(levelTone(entry.level))}>{c.level.padEnd(W.level)}</Text>{' '}
            <Text color={paint(latencyTone(entry.elapsedTime))}>{c.latency.padStart(W.latency)}</Text>{' '}
            {fit(c.target, target)}
          </Text>
        );
      })}
    </Box>
  );
}
