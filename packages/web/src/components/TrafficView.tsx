import type { TaplineClient } from '@tapline/shared/browser';
import { useEffect, useRef, useState } from 'react';
import { useTrafficFeed } from '../hooks/useTrafficFeed.js';
import { FilterBar } from './FilterBar.js';
import { Help } from './Help.js';
import { TrafficList } from './TrafficList.js';

export interface TrafficViewProps {
  readonly client: TaplineClient;
  readonly sourceId: string;
  readonly q: string;
  readonly onQuery: (q: string) => void;
  readonly onOpen: (entryId: string) => void;
  readonly onError: (error: unknown) => void;
}

const STATE_TEXT = { loading: 'Loading…', live: 'Live', paused: 'Paused', reconnecting: 'Reconnecting…' } as const;

/** The live list: filter bar, follow/pause, the rows; `/` filters, `?` shows the keys. */
export function TrafficView({ client, sourceId, q, onQuery, onOpen, onError }: TrafficViewProps) {
  const feed = useTrafficFeed(client, sourceId, q, onError);
  const [selectedId, setSelectedId] = useState<string | undefined>();
  const [help, setHelp] = useState(false);
  const filterRef = useRef<HTMLInputElement>(null);
  const listRef = useRef<HTMLDivElement>(null);
  const found = selectedId === undefined ? -1 : feed.rows.findIndex((row) => row.id === selectedId);
  const selected = Math.max(0, found);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const target = event.target;
      if (
        target instanceof HTMLInputElement ||
        target instanceof HTMLTextAreaElement ||
        target instanceof HTMLSelectElement
      )
        return;
      if (event.key === '/') {
        event.preventDefault();
        filterRef.current?.focus();
      } else if (event.key === '?') {
        setHelp((shown) => !shown);
      } else if ((event.key === 'j' || event.key === 'k') && document.activeElement !== listRef.current) {
        // From anywhere on the page the keys move in the list, as in the terminal UI.
        event.preventDefault();
        listRef.current?.focus();
        const next = Math.min(feed.rows.length - 1, Math.max(0, selected + (event.key === 'j' ? 1 : -1)));
        setSelectedId(feed.rows[next]?.id);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [feed.rows, selected]);

  return (
    <section className="traffic-view" aria-label="Traffic">
      <div className="toolbar">
        <FilterBar value={q} onApply={onQuery} inputRef={filterRef} />
        <span className={`feed-state ${feed.state}`} role="status" aria-live="polite">
          {STATE_TEXT[feed.state]}
          {feed.state === 'reconnecting' && feed.reconnectReason ? ` (${feed.reconnectReason})` : ''}
        </span>
        {feed.state === 'paused' ? (
          <button type="button" onClick={feed.resume}>
            Resume
          </button>
        ) : (
          <button type="button" onClick={feed.pause}>
            Pause
          </button>
        )}
      </div>
      {help && <Help onClose={() => setHelp(false)} />}
      {feed.rows.length === 0 && feed.state !== 'loading' ? (
        <p className="empty">No entries{q ? ' match this filter' : ' yet'}.</p>
      ) : null}
      <TrafficList
        rows={feed.rows}
        selected={selected}
        listRef={listRef}
        onSelect={(index) => setSelectedId(feed.rows[index]?.id)}
        onOpen={(entry) => onOpen(entry.id)}
      />
    </section>
  );
}
