import { useState } from 'react';
import type { Keymap } from './useKeymap.js';

export interface Selection {
  /** The selected row, kept within the list as it grows and shrinks. */
  readonly selected: number;
  /** The first row shown, so that the selected one stays in the window. */
  readonly top: number;
  /** Bindings for ↑↓ j k PgUp PgDn g G. */
  readonly keys: Keymap;
}

/** A cursor over `count` rows of a list shown `visible` rows at a time. */
export function useSelection(count: number, visible: number): Selection {
  const [raw, setSelected] = useState(0);
  const last = Math.max(0, count - 1);
  const selected = Math.min(raw, last);
  const move = (delta: number) => setSelected((s) => Math.max(0, Math.min(last, Math.min(s, last) + delta)));
  return {
    selected,
    top: Math.max(0, selected - visible + 1),
    keys: {
      up: () => move(-1),
      k: () => move(-1),
      down: () => move(1),
      j: () => move(1),
      pageup: () => move(-visible),
      pagedown: () => move(visible),
      g: () => setSelected(0),
      G: () => setSelected(last),
    },
  };
}
