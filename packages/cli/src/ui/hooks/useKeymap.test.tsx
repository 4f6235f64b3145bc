import { Text } from 'ink';
import { render } from 'ink-testing-library';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { frameWith } from '@tapline/testkit/cli';
import { useKeymap } from './useKeymap.js';

function Counter() {
  const [log, setLog] = useState('');
  useKeymap({
    j: () => setLog((l) => `${l}j`),
    enter: () => setLog((l) => `${l}⏎`),
    space: () => setLog((l) => `${l}_`),
    up: () => setLog((l) => `${l}↑`),
  });
  return <Text>keys:{log}</Text>;
}

describe('useKeymap', () => {
  it('names special keys and runs each key of a chunk typed at once (key repeat, fast typing)', async () => {
    const { lastFrame, stdin } = render(<Counter />);
    await frameWith(lastFrame, 'keys:');
    await new Promise((resolve) => setTimeout(resolve, 30));
    stdin.write('jjj\r');
    await frameWith(lastFrame, 'keys:jjj⏎');
    stdin.write('\u001B[A');
    await frameWith(lastFrame, 'keys:jjj⏎↑');
    stdin.write(' ');
    expect(await frameWith(lastFrame, 'keys:jjj⏎↑_')).toBe('keys:jjj⏎↑_');
  });
});
