import type { HttpTraffic } from '@tapline/shared';
import { useEffect, useRef } from 'react';
import { listKeys } from '../hooks/list-keys.js';
import { useKeymap } from '../hooks/useKeymap.js';
import type { TrafficFeed } from '../hooks/useTrafficStream.js';
import { jumpNewest, jumpOldest, move, nearEnd, resize, type TableState, togglePause } from '../table-state.js';
import { TrafficTable } from './TrafficTable.js';

export interface TrafficViewProps {
  readonly feed: TrafficFeed;
  readonly width: number;
  /** Lines for the table, its column header included. */
  readonly rows: number;
  readonly active: boolean;
  readonly filtered: boolean;
  /** The entry marked with `m`, shown in its row. */
  readonly markedId?: string | undefined;
  readonly onOpen: (entry: HttpTraffic) => void;
  /** `m`: mark the selected entry, to diff others against. */
  readonly onMark: (entry: HttpTraffic) => void;
  /** `=`: diff the selected entry against the marked one. */
  readonly onDiff: (entry: HttpTraffic) => void;
}

/** The live table and its keys: follow/pause, move, jump, page (fetching history on demand). */
export function TrafficView({
  feed,
  width,
  rows,
  active,
  filtered,
  markedId,
  onOpen,
  onMark,
  onDiff,
}: TrafficViewProps) {
  const { table, update, loadOlder } = feed;
  const bodyRows = Math.max(1, rows - 1);

  useEffect(() => update((t) => resize(t, bodyRows)), [bodyRows, update]);
  // Moving near the end of what is loaded fetches the next older page before it is needed.
  useEffect(() => {
    if (!table.following && nearEnd(table, bodyRows)) loadOlder();
  }, [table, bodyRows, loadOlder]);

  // Keys that arrive in one chunk ("jjj\r") run before React re-renders: Enter must see the
  // selection the j's made, so each change is also applied to this mirror of the table.
  const mirror = useRef(table);
  mirror.current = table;
  const change = (fn: (t: TableState) => TableState) => {
    mirror.current = fn(mirror.current);
    update(fn);
  };
  const by = (delta: number) => change((t) => move(t, delta, bodyRows));
  const withSelected = (act: (entry: HttpTraffic) => void) => {
    const entry = mirror.current.entries[mirror.current.selected];
    if (entry) act(entry);
  };
  useKeymap(
    {
      space: () => change(togglePause),
      ...listKeys({
        by,
        first: () => change(jumpNewest),
        last: () => change((t) => jumpOldest(t, bodyRows)),
        page: bodyRows,
      }),
      enter: () => withSelected(onOpen),
      m: () => withSelected(onMark),
      '=': () => withSelected(onDiff),
    },
    active,
  );

  const visible = table.entries.slice(table.top, table.top + bodyRows);
  // "No traffic" only once the daemon said so: before the first page, or with the stream down, nothing is known.
  const empty =
    feed.status.state === 'connecting'
      ? 'Loading…'
      : feed.status.state !== 'live'
        ? ''
        : filtered
          ? 'No traffic matches this filter yet; waiting for new entries…'
          : 'No traffic yet; waiting for new entries…';
  return (
    <TrafficTable
      entries={visible}
      selected={table.selected - table.top}
      width={width}
      rows={bodyRows}
      emptyText={empty}
      markedId={markedId}
    />
  );
}
