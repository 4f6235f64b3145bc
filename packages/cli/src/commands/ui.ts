import type { Command } from 'commander';
import { example } from '../help.js';
import type { Register } from '../register.js';

export const registerUi: Register = (program, context) => {
  const cmd = program
    .command('ui [source]')
    .description('the terminal UI: live traffic of a source (picked from a list when not given), records, core logs, webhooks')
    .option('--where <expr>', 'start with this filter, such as "status>=500"')
    .action(async (source: string | undefined, opts: { where?: string }, command: Command) => {
      const ctx = context(command);
      // Ink draws only its last frame when it thinks it runs in CI (is-in-ci, read once when Ink
      // loads: CI, CONTINUOUS_INTEGRATION, CI_*). The UI needs a terminal and checks for one, so
      // it stays interactive in a shell that has CI set, such as a tmux session on a CI runner.
      if (process.stdout.isTTY) process.env.CI = '0';
      // Loaded only here: Ink and React stay out of every other command's start-up.
      const { runUi } = await import('../ui/run.js');
      await runUi(ctx, source, opts);
    });
  example(cmd, 'tapline ui', 'tapline ui shop --where "status>=500"');
};
