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
}

const FIXED = W.time + W.method + W.status + W.level + W.latency + 5;

export function TrafficTable({ entries, selected, width, rows, emptyText }: TrafficTableProps) {
  const paint = usePaint();
  const target = Math.max(8, width - FIXED - 1);
  return (
    <Box flexDirection="column" height={rows + 1}>
      <Text bold wrap="truncate">
        {`${'TIME'.padEnd(W.time)} ${'METHOD'.padEnd(W.method)} ${'STS'.padEnd(W.status)} ${'LEVEL'.padEnd(W.level)} ${'LATENCY'.padStart(W.latency)} DOMAIN+PATH`}
      </Text>
      {entries.length === 0 ? <Text dimColor>{emptyText}</Text> : null}
      {entries.map((entry, i) => {
        const c = entryCells(entry);
        return (
          <Text key={entry.id} inverse={i === selected} wrap="truncate">
            <Text dimColor={i !== selected}>{c.time.padEnd(W.time)}</Text> <Text color={paint(methodTone(entry.method))}>{c.method.padEnd(W.method)}</Text>{' '}
            <Text color={paint(statusTone(entry.status))}>{c.status.padEnd(W.status)}</Text> <Text color={paint(levelTone(entry.level))}>{c.level.padEnd(W.level)}</Text>{' '}
            <Text color={paint(latencyTone(entry.elapsedTime))}>{c.latency.padStart(W.latency)}</Text> {fit(c.target, target)}
          </Text>
        );
      })}
    </Box>
  );
}
