import { Text } from 'ink';
import { footerLine, type Screen } from '../keys.js';

export interface FooterProps {
  readonly screen: Screen;
  /** Columns available: lesser keys are left out rather than `? help` and `q quit` cut off. */
  readonly width: number;
}

export function Footer({ screen, width }: FooterProps) {
  return (
    <Text dimColor wrap="truncate">
      {footerLine(screen, width)}
    </Text>
  );
}
