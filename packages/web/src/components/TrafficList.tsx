import { formatLatency, formatLocalTime, type HttpTraffic, statusClass, trafficTarget } from '@tapline/shared/browser';
import { type KeyboardEvent, type RefObject, useEffect, useRef, useState } from 'react';

/** Every row is this tall (styles.css `.row`), so the rows in view follow from the scroll offset alone. */
export const ROW_HEIGHT = 28;
const OVERSCAN = 10;

export interface TrafficListProps {
  /** Newest first. */
  readonly rows: readonly HttpTraffic[];
  readonly selected: number;
  readonly onSelect: (index: number) => void;
  readonly onOpen: (entry: HttpTraffic) => void;
  readonly listRef?: RefObject<HTMLDivElement | null>;
}

/**
 * The traffic as a listbox that renders only the rows in view (and a few around them), so a
 * hundred thousand loaded entries scroll as smoothly as ten. `j`/`k` and the arrows move, Enter opens.
 */
export function TrafficList({ rows, selected, onSelect, onOpen, listRef }: TrafficListProps) {
  const own = useRef<HTMLDivElement | null>(null);
  const box = listRef ?? own;
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(600);

  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const observer = new ResizeObserver(() => setHeight(element.clientHeight));
    observer.observe(element);
    return () => observer.disconnect();
  }, [box]);

  // The selected row stays in view when the keyboard moves past the edge.
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const top = selected * ROW_HEIGHT;
    if (top < element.scrollTop) element.scrollTop = top;
    else if (top + ROW_HEIGHT > element.scrollTop + element.clientHeight)
      element.scrollTop = top + ROW_HEIGHT - element.clientHeight;
  }, [selected, box]);

  const first = Math.max(0, Math.floor(scrollTop / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(rows.length, Math.ceil((scrollTop + height) / ROW_HEIGHT) + OVERSCAN);

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const step = { j: 1, ArrowDown: 1, k: -1, ArrowUp: -1, PageDown: 20, PageUp: -20 }[event.key];
    if (step !== undefined) {
      event.preventDefault();
      onSelect(Math.min(rows.length - 1, Math.max(0, selected + step)));
    } else if (event.key === 'Home' || event.key === 'End') {
      event.preventDefault();
      onSelect(event.key === 'Home' ? 0 : rows.length - 1);
    } else if (event.key === 'Enter') {
      const entry = rows[selected];
      if (entry) onOpen(entry);
    }
  };

  const active = rows[selected];
  return (
    <div className="traffic-list">
      <div className="row head" aria-hidden="true">
        <span>Time</span>
        <span>Method</span>
        <span>Status</span>
        <span>Level</span>
        <span>Latency</span>
        <span>Target</span>
      </div>
      <div
        ref={box}
        className="rows"
        role="listbox"
        tabIndex={0}
        aria-label={`Traffic, ${rows.length} entries`}
        aria-activedescendant={active ? `entry-${active.id}` : undefined}
        onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}
        onKeyDown={onKeyDown}
      >
        <div style={{ height: rows.length * ROW_HEIGHT, position: 'relative' }}>
          {rows.slice(first, last).map((entry, offset) => {
            const index = first + offset;
            return (
              <div
                key={entry.id}
                id={`entry-${entry.id}`}
                role="option"
                aria-selected={index === selected}
                className={`row level-${entry.level.toLowerCase()} status-${statusClass(entry.status)}`}
                style={{ top: index * ROW_HEIGHT }}
                onClick={() => onSelect(index)}
                onDoubleClick={() => onOpen(entry)}
              >
                <span>{formatLocalTime(entry.createdAt).slice(11)}</span>
                <span className="method">{entry.method}</span>
                <span className="status">{entry.status}</span>
                <span className="level">{entry.level}</span>
                <span>{formatLatency(entry.elapsedTime)}</span>
                <span className="target">{trafficTarget(entry)}</span>
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}
