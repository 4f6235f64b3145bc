import { useState } from 'react';
import { listKeys } from './list-keys.js';
import type { Keymap } from './useKeymap.js';

export interface Selection {
  /** The selected row, kept within the list as it grows and shrinks. */
  readonly selected: number;
  /** The first row shown, so that the selected one stays in the window. */
  readonly top: number;
  /** Bindings for ↑↓ j k PgUp PgDn g G Home End. */
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
    keys: listKeys({ by: move, first: () => setSelected(0), last: () => setSelected(last), page: visible }),
  };
}
