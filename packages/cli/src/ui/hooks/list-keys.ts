import type { Keymap } from './useKeymap.js';

export interface ListMotion {
  /** Moves the cursor (or the scroll offset) by this many rows; the caller clamps. */
  readonly by: (delta: number) => void;
  readonly first: () => void;
  readonly last: () => void;
  /** Rows moved by PgUp and PgDn. */
  readonly page: number;
}

/** The keys every list and scrolled text answers alike: ↑↓ j k, PgUp PgDn, g Home, G End. */
export function listKeys({ by, first, last, page }: ListMotion): Keymap {
  return {
    up: () => by(-1),
    k: () => by(-1),
    down: () => by(1),
    j: () => by(1),
    pageup: () => by(-page),
    pagedown: () => by(page),
    g: first,
    home: first,
    G: last,
    end: last,
  };
}
