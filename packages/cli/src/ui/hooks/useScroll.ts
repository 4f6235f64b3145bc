import { useState } from 'react';
import type { Keymap } from './useKeymap.js';

export interface Scroll {
  readonly offset: number;
  /** Bindings for ↑↓ j k PgUp PgDn g G. */
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
    keys: {
      up: () => by(-1),
      k: () => by(-1),
      down: () => by(1),
      j: () => by(1),
      pageup: () => by(-page),
      pagedown: () => by(page),
      g: () => setOffset(0),
      home: () => setOffset(0),
      G: () => setOffset(max),
      end: () => setOffset(max),
    },
    reset: () => setOffset(0),
  };
}
