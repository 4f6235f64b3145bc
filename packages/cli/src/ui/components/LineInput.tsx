import { Text, useInput } from 'ink';
import { useRef, useState } from 'react';

export interface LineInputProps {
  readonly value: string;
  readonly onChange: (value: string) => void;
  readonly placeholder?: string;
}

/**
 * A one-line text field. Unlike ink-text-input it edits through a ref, so keys typed between a
 * render and the moment Ink re-binds input handlers (frequent while traffic streams in) are
 * never applied to a stale value and lost.
 */
const ERASE = new Set(['\u007F', '\b']);

/**
 * Applies one chunk of typed text at the cursor. Keys pressed quickly (or held) arrive as one
 * chunk, "ab\u007F\u007F" included, and Ink passes it whole: each Backspace in it erases one
 * character, other control characters are dropped.
 */
export function edit(value: string, at: number, chunk: string): [string, number] {
  let v = value;
  let cursor = at;
  for (const ch of chunk) {
    if (ERASE.has(ch)) {
      if (cursor > 0) [v, cursor] = [v.slice(0, cursor - 1) + v.slice(cursor), cursor - 1];
    } else if (ch >= ' ') {
      [v, cursor] = [v.slice(0, cursor) + ch + v.slice(cursor), cursor + ch.length];
    }
  }
  return [v, cursor];
}

export function LineInput({ value, onChange, placeholder = '' }: LineInputProps) {
  const text = useRef(value);
  const cursorRef = useRef(value.length);
  // The cursor lives in a ref (read by the input handler); this only asks for a redraw.
  const [, redraw] = useState(0);
  if (text.current !== value) {
    // Set from outside (recall): put the cursor at the end.
    text.current = value;
    cursorRef.current = value.length;
  }
  const set = (next: string, at: number) => {
    text.current = next;
    cursorRef.current = Math.max(0, Math.min(next.length, at));
    redraw((n) => n + 1);
    onChange(next);
  };
  useInput((input, key) => {
    const v = text.current;
    const at = cursorRef.current;
    if (key.leftArrow) return set(v, at - 1);
    if (key.rightArrow) return set(v, at + 1);
    if (key.home || (key.ctrl && input === 'a')) return set(v, 0);
    if (key.end || (key.ctrl && input === 'e')) return set(v, v.length);
    if (key.ctrl && input === 'u') return set('', 0);
    if (key.backspace || key.delete) return set(...edit(v, at, '\u007F'));
    if (key.upArrow || key.downArrow || key.return || key.escape || key.tab || key.ctrl || key.meta || !input) return;
    set(...edit(v, at, input));
  });
  const at = Math.min(cursorRef.current, value.length);
  if (!value)
    return (
      <Text dimColor>
        {placeholder ? <Text inverse>{placeholder[0]}</Text> : <Text inverse> </Text>}
        {placeholder.slice(1)}
      </Text>
    );
  return (
    <Text>
      {value.slice(0, at)}
      <Text inverse>{value[at] ?? ' '}</Text>
      {value.slice(at + 1)}
    </Text>
  );
}
