import { type Key, useInput } from 'ink';
import { useRef } from 'react';

/** Names of keys as the keymaps and the help screen spell them. */
export type KeyName =
  | 'up'
  | 'down'
  | 'pageup'
  | 'pagedown'
  | 'home'
  | 'end'
  | 'enter'
  | 'escape'
  | 'tab'
  | 'space'
  | 'backspace'
  | (string & {});

export type Keymap = Readonly<Partial<Record<KeyName, () => void>>>;

export function keyName(input: string, key: Key): KeyName | null {
  if (key.upArrow) return 'up';
  if (key.downArrow) return 'down';
  if (key.pageUp) return 'pageup';
  if (key.pageDown) return 'pagedown';
  if (key.home) return 'home';
  if (key.end) return 'end';
  if (key.return) return 'enter';
  if (key.escape) return 'escape';
  if (key.tab) return 'tab';
  if (key.backspace || key.delete) return 'backspace';
  if (key.ctrl || key.meta) return null;
  if (input === ' ') return 'space';
  return input.length === 1 ? input : null;
}

/**
 * Calls the handler bound to each key pressed while `active`. The map is read through a ref, so
 * handlers may close over fresh state without re-subscribing to stdin on every render.
 */
export function useKeymap(keymap: Keymap, active = true): void {
  const ref = useRef(keymap);
  ref.current = keymap;
  useInput(
    (input, key) => {
      // Keys typed quickly (or held down) can arrive as one chunk, "jjj\r": each one counts.
      if (input.length > 1 && !key.ctrl && !key.meta) {
        for (const ch of input) {
          const name = ch === '\r' || ch === '\n' ? 'enter' : ch === ' ' ? 'space' : ch;
          ref.current[name]?.();
        }
        return;
      }
      const name = keyName(input, key);
      if (name) ref.current[name]?.();
    },
    { isActive: active },
  );
}
