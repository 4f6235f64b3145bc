import type { HttpTraffic } from '@tapline/shared';
import { useEffect } from 'react';
import { useKeymap } from '../hooks/useKeymap.js';
import type { TrafficFeed } from '../hooks/useTrafficStream.js';
import { jumpNewest, jumpOldest, move, nearEnd, resize, togglePause } from '../table-state.js';
import { TrafficTable } from './TrafficTable.js';

export interface TrafficViewProps {
  readonly feed: TrafficFeed;
  readonly width: number;
  /** Lines for the table, its column header included. */
  readonly rows: number;
  readonly active: boolean;
  readonly filtered: boolean;
  readonly onOpen: (entry: HttpTraffic) => void;
}

/** The live table and its keys: follow/pause, move, jump, page (fetching history on demand). */
export function TrafficView({ feed, width, rows, active, filtered, onOpen }: TrafficViewProps) {
  const { table, update, loadOlder } = feed;
  const bodyRows = Math.max(1, rows - 1);

  useEffect(() => update((t) => resize(t, bodyRows)), [bodyRows, update]);
  // Moving near the end of what is loaded fetches the next older page before it is needed.
  useEffect(() => {
    if (!table.following && nearEnd(table, bodyRows)) loadOlder();
  }, [table, bodyRows, loadOlder]);

  const by = (delta: number) => update((t) => move(t, delta, bodyRows));
  useKeymap(
    {
      space: () => update(togglePause),
      up: () => by(-1),
      k: () => by(-1),
      down: () => by(1),
      j: () => by(1),
      pageup: () => by(-bodyRows),
      pagedown: () => by(bodyRows),
      g: () => update(jumpNewest),
      home: () => update(jumpNewest),
      G: () => update((t) => jumpOldest(t, bodyRows)),
      end: () => update((t) => jumpOldest(t, bodyRows)),
      enter: () => {
        const entry = table.entries[table.selected];
        if (entry) onOpen(entry);
      },
    },
    active,
  );

  const visible = table.entries.slice(table.top, table.top + bodyRows);
  const empty = feed.error ? '' : filtered ? 'No traffic matches this filter yet; waiting for new entries…' : 'No traffic yet; waiting for new entries…';
  return <TrafficTable entries={visible} selected={table.selected - table.top} width={width} rows={bodyRows} emptyText={empty} />;
}
