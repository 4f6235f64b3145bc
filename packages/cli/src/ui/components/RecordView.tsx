import type { HttpTraffic, TrafficSource } from '@tapline/shared';
import { Box, Text } from 'ink';
import { useEffect, useMemo, useRef, useState } from 'react';
import { describeError, type UiApi } from '../api.js';
import { entryCells, levelTone, statusTone } from '../entry-columns.js';
import { useAsync } from '../hooks/useAsync.js';
import { useKeymap } from '../hooks/useKeymap.js';
import { useScroll } from '../hooks/useScroll.js';
import { recordLines, type Side, wrapLine } from '../record-lines.js';
import { curlWarnings } from '../../replay/redacted.js';
import { failureLines, replayLines, type ReplayState } from '../replay-lines.js';
import type { Tone } from './StatusLine.js';
import { ScrolledLines } from './ScrolledLines.js';
import { usePaint } from '../palette.js';

export interface RecordViewProps {
  readonly api: UiApi;
  readonly source: Pick<TrafficSource, 'id' | 'name'>;
  readonly entry: HttpTraffic;
  readonly width: number;
  readonly rows: number;
  readonly active: boolean;
  readonly onBack: () => void;
  readonly onNotice: (text: string, tone?: Tone) => void;
}

/** One record: request (first) or response headers and pretty bodies, scrollable; `c` for curl, `r` to replay beside the original. */
export function RecordView({ api, source, entry, width, rows, active, onBack, onNotice }: RecordViewProps) {
  const paint = usePaint();
  // Request first, as docs/ui.md shows: what was asked reads before what came back.
  const [side, setSide] = useState<Side>('request');
  const [curlShown, setCurlShown] = useState<string | null>(null);
  const [replay, setReplay] = useState<ReplayState | null>(null);
  const replays = useRef<AbortController | null>(null);
  useEffect(() => () => replays.current?.abort(), []);
  const record = useAsync(() => api.getTraffic(source.id, entry.id), [api, source.id, entry.id]);
  const bodyRows = Math.max(1, rows - 2);
  const lines = useMemo(() => {
    if (curlShown) return ['No clipboard here; the curl command:', '', ...wrapLine(curlShown, width)];
    if (record.error) return [`Could not load the record: ${record.error}`];
    if (!record.data) return ['Loading…'];
    if (replay) return replayLines(record.data, replay, width);
    return recordLines(record.data, side, width);
  }, [record.data, record.error, side, width, curlShown, replay]);
  const scroll = useScroll(lines.length, bodyRows);

  const copyCurl = () => {
    if (!record.data) return;
    const curl = api.curlFor(record.data);
    if (!curl) return onNotice('no curl command for this record', 'warn');
    const warnings = curlWarnings(record.data.request);
    api.copy(curl).then(
      (to) => {
        const copied =
          to === 'clipboard'
            ? 'curl command copied to the clipboard'
            : 'curl command sent to the terminal clipboard (OSC 52)';
        onNotice(
          warnings.length ? `${copied}; warning: ${warnings.join('; ')}` : copied,
          warnings.length ? 'warn' : 'info',
        );
      },
      (e: unknown) => {
        setCurlShown(curl);
        onNotice(`clipboard unavailable (${describeError(e)}); the command is shown instead`, 'warn');
      },
    );
  };

  const sendAgain = () => {
    if (!record.data) return;
    replays.current?.abort();
    const controller = new AbortController();
    replays.current = controller;
    setCurlShown(null);
    setReplay({ state: 'sending' });
    scroll.reset();
    api.replay(record.data, controller.signal).then(
      (response) => !controller.signal.aborted && setReplay({ state: 'done', response }),
      (e: unknown) =>
        !controller.signal.aborted &&
        setReplay({
          state: 'failed',
          lines: failureLines(e, `tapline traffic replay ${source.name} ${entry.id.slice(0, 13)}`),
        }),
    );
  };
  const closeReplay = () => {
    replays.current?.abort();
    setReplay(null);
  };

  useKeymap(
    {
      ...scroll.keys,
      r: sendAgain,
      tab: () => {
        closeReplay();
        setCurlShown(null);
        setSide((s) => (s === 'request' ? 'response' : 'request'));
        scroll.reset();
      },
      c: copyCurl,
      escape: () => (curlShown ? setCurlShown(null) : replay ? closeReplay() : onBack()),
      backspace: onBack,
    },
    active,
  );

  const c = entryCells(entry);
  return (
    <Box flexDirection="column" height={rows}>
      <Text wrap="truncate">
        <Text bold>{c.method}</Text> <Text color={paint(statusTone(entry.status))}>{c.status}</Text>{' '}
        <Text color={paint(levelTone(entry.level))}>{c.level}</Text> {c.latency} {c.target}{' '}
        <Text dimColor>{entry.createdAt}</Text>
      </Text>
      <Text>
        <Text inverse={!replay && side === 'request'} bold={!replay && side === 'request'}>
          {' Request '}
        </Text>{' '}
        <Text inverse={!replay && side === 'response'} bold={!replay && side === 'response'}>
          {' Response '}
        </Text>
        {replay ? (
          <>
            {' '}
            <Text inverse bold>
              {' Replay '}
            </Text>
          </>
        ) : null}
        <Text dimColor>
          {'  '}
          {lines.length > bodyRows
            ? `lines ${scroll.offset + 1}-${Math.min(lines.length, scroll.offset + bodyRows)} of ${lines.length}`
            : ''}
        </Text>
      </Text>
      <ScrolledLines lines={lines} offset={scroll.offset} rows={bodyRows} />
    </Box>
  );
}
