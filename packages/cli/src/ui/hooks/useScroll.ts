import { useState } from 'react';
import { listKeys } from './list-keys.js';
import type { Keymap } from './useKeymap.js';

export interface Scroll {
  readonly offset: number;
  /** Bindings for ↑↓ j k PgUp PgDn g G Home End. */
  readonly keys: Keymap;
  reset(): void;
}

/** Scrolling a text of `total` lines through a window of `rows`. */
export function useScroll(total: number, rows: number): Scroll {
  const [raw, setOffset] = useState(0);
  const max = Math.max(0, total - rows);
  const offset = Math.min(raw, max);
  const by = (delta: number) => setOffset((o) => Math.max(0, Math.min(max, Math.min(o, max) + delta)));
  const page = Math.max(1, rows - 1);
  return {
    offset,
    keys: listKeys({ by, first: () => setOffset(0), last: () => setOffset(max), page }),
    reset: () => setOffset(0),
  };
}
