import { Text, useInput } from 'ink';
import { usePaint } from '../palette.js';

export interface ConfirmPromptProps {
  readonly question: string;
  /** Called once with true for `y`, false for any other key. */
  readonly onAnswer: (yes: boolean) => void;
}

/** A yes/no line: only `y` agrees, so a stray key never destroys anything. */
export function ConfirmPrompt({ question, onAnswer }: ConfirmPromptProps) {
  const paint = usePaint();
  useInput((input) => onAnswer(input === 'y' || input === 'Y'));
  return (
    <Text color={paint('yellow')} wrap="truncate">
      {question} <Text bold>y</Text> to confirm, any other key to cancel
    </Text>
  );
}
