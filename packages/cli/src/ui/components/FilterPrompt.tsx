import { Box, Text } from 'ink';
import TextInput from 'ink-text-input';
import { useState } from 'react';
import type { FilterCheck } from '../api.js';
import { useKeymap } from '../hooks/useKeymap.js';

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
  const [value, setValue] = useState(initial);
  // -1 is the text being typed; 0.. index `recent`. Remounting the input on recall puts the cursor at the end.
  const [recall, setRecall] = useState(-1);
  const [draft, setDraft] = useState(initial);
  const result = value.trim() === '' ? ({ ok: true } as const) : check(value);

  const recallTo = (index: number) => {
    if (index < -1 || index >= recent.length) return;
    if (recall === -1) setDraft(value);
    setRecall(index);
    setValue(index === -1 ? draft : (recent[index] ?? ''));
  };

  useKeymap({ escape: onClear, up: () => recallTo(recall + 1), down: () => recallTo(recall - 1) });

  return (
    <Box>
      <Text color="cyan">/ </Text>
      <TextInput
        key={recall}
        value={value}
        onChange={setValue}
        onSubmit={(q) => {
          if (q.trim() === '' || check(q).ok) onApply(q.trim());
        }}
        placeholder="status>=500 and path^=/api/"
      />
      <Text> </Text>
      {result.ok ? (
        <Text color="green">{value.trim() ? '✓ enter to apply' : ''}</Text>
      ) : (
        <Text color="red" wrap="truncate">
          ✗ col {result.column}: {result.message}
        </Text>
      )}
    </Box>
  );
}
