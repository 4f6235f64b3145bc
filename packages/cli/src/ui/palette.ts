import { createContext, useContext } from 'react';
import type { Tone } from './entry-columns.js';

/**
 * Whether the UI may colour text: off under NO_COLOR, `--no-color` and TERM=dumb. Colour then
 * disappears everywhere while inverse video and bold stay, so the selected row and the active tab
 * are never shown by colour alone.
 */
export interface Palette {
  readonly color: boolean;
}

export const PaletteContext = createContext<Palette>({ color: true });

/** Returns the function giving Ink's `color` prop: the tone, or nothing when colour is off. */
export function usePaint(): (tone: Tone | undefined) => Tone | undefined {
  const { color } = useContext(PaletteContext);
  return (tone) => (color ? tone : undefined);
}
