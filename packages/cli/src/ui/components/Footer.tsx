import { Text } from 'ink';
import { FOOTER, type Screen } from '../keys.js';

export interface FooterProps {
  readonly screen: Screen;
}

export function Footer({ screen }: FooterProps) {
  return (
    <Text dimColor wrap="truncate">
      {FOOTER[screen]}
    </Text>
  );
}
