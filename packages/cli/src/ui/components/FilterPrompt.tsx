import { Box, Text } from 'ink';
import { useRef, useState } from 'react';
import type { FilterCheck } from '../api.js';
import { useKeymap } from '../hooks/useKeymap.js';
import { LineInput } from './LineInput.js';
import { usePaint } from '../palette.js';

export interface FilterPromptProps {
  readonly initial: string;
  /** Recently applied filters, most recent first. */
  readonly recent: readonly string[];
  readonly check: (q: string) => FilterCheck;
  readonly onApply: (q: string) => void;
  /** Esc: the filter is removed and the prompt closed. */
  readonly onClear: () => void;
}

/** The `/` prompt: checked on each keystroke, applied on Enter, cleared on Esc, ↑↓ recall. */
export function FilterPrompt({ initial, recent, check, onApply, onClear }: FilterPromptProps) {
  const paint = usePaint();
  const [value, setShown] = useState(initial);
  // Enter may follow a keystroke before React re-renders: submit reads the ref, never a stale render.
  const current = useRef(initial);
  const setValue = (next: string) => {
    current.current = next;
    setShown(next);
  };
  // -1 is the text being typed; 0.. index `recent`.
  const [recall, setRecall] = useState(-1);
  const [draft, setDraft] = useState(initial);
  const result = value.trim() === '' ? ({ ok: true } as const) : check(value);

  const recallTo = (index: number) => {
    if (index < -1 || index >= recent.length) return;
    if (recall === -1) setDraft(current.current);
    setRecall(index);
    setValue(index === -1 ? draft : (recent[index] ?? ''));
  };

  const submit = () => {
    const q = current.current.trim();
    if (q === '' || check(q).ok) onApply(q);
  };
  useKeymap({ escape: onClear, up: () => recallTo(recall + 1), down: () => recallTo(recall - 1), enter: submit });

  return (
    <Box>
      <Text color={paint('cyan')}>/ </Text>
      <LineInput value={value} onChange={setValue} placeholder="status>=500 and path^=/api/" />
      <Text> </Text>
      {result.ok ? (
        <Text color={paint('green')}>{value.trim() ? '✓ enter to apply' : ''}</Text>
      ) : (
        <Text color={paint('red')} wrap="truncate">
          ✗ col {result.column}: {result.message}
        </Text>
      )}
    </Box>
  );
}
