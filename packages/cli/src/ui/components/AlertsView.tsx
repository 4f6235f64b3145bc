import type { AlertRule } from '@tapline/shared';
import { Box, Text } from 'ink';
import { createColors } from 'picocolors';
import { useContext } from 'react';
import { firingTable } from '../../commands/alerts.js';
import { useKeymap } from '../hooks/useKeymap.js';
import { useScroll } from '../hooks/useScroll.js';
import { PaletteContext, usePaint } from '../palette.js';

export interface AlertsViewProps {
  /** The firing rules (firingOf), asked for by the session, which also counts them in the header. */
  readonly firing: readonly AlertRule[] | undefined;
  readonly error: string | null;
  readonly width: number;
  readonly rows: number;
  readonly active: boolean;
  readonly onBack: () => void;
}

/** `a`: the rules firing now, longest first, in `tapline alerts list`'s words; `tapline alerts history` has the rest. */
export function AlertsView({ firing, error, width, rows, active, onBack }: AlertsViewProps) {
  const paint = usePaint();
  const { color } = useContext(PaletteContext);
  const [header = '', ...lines] =
    firing && firing.length > 0 ? firingTable({ colors: createColors(color), width }, firing, Date.now()) : [];
  const listRows = Math.max(1, rows - 2);
  const { offset: top, keys } = useScroll(lines.length, listRows);
  useKeymap({ ...keys, escape: onBack, backspace: onBack }, active);
  return (
    <Box flexDirection="column" height={rows}>
      <Text bold wrap="truncate">
        Alerts <Text color={paint('red')}>firing now</Text>
        <Text dimColor>{firing ? ` · ${firing.length}` : ' loading…'}</Text>
      </Text>
      {error ? <Text color={paint('red')}>Could not load the alert rules: {error}</Text> : null}
      {firing && firing.length === 0 ? (
        <Text dimColor>
          No rule is firing. `tapline alerts list` shows every rule, `tapline alerts history` their changes.
        </Text>
      ) : null}
      {lines.length > 0 ? <Text wrap="truncate">{header}</Text> : null}
      {lines.slice(top, top + listRows).map((line, i) => (
        <Text key={firing?.[top + i]?.id ?? i} wrap="truncate">
          {line}
        </Text>
      ))}
    </Box>
  );
}
