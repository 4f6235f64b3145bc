import { describe, expect, it } from 'vitest';
import { run } from '@tapline/testkit/cli';

describe('tapline ui', () => {
  it('an invalid --where is a usage error with a caret, as tail gives, before anything is fetched or drawn', async () => {
    const result = await run(['ui', 'shop', '--where', 'status>>500'], { stdinTTY: true, stdoutTTY: true });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('tapline: --where: ');
    expect(result.stderr).toMatch(/at column 8\n {2}status>>500\n {2} {7}\^/);
    expect(result.stdout).toBe('');
  });

  it('without a terminal it says what to use instead (exit 2)', async () => {
    const result = await run(['ui', 'shop'], { env: { TAPLINE_TOKEN: 't' } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('tapline: ui needs a terminal\n');
  });
});
