import type { Command } from 'commander';
import { example } from '../help.js';
import type { Register } from '../register.js';
import { checkedWhere } from '../where.js';

export const registerUi: Register = (program, context) => {
  const cmd = program
    .command('ui [source]')
    .description(
      'the terminal UI: live traffic of a source (picked from a list when not given), records, per-route numbers, core logs, webhooks',
    )
    .option('--where <expr>', 'start with this filter, such as "status>=500"')
    .action(async (source: string | undefined, opts: { where?: string }, command: Command) => {
      const where = checkedWhere(opts.where);
      const ctx = context(command);
      // Loaded only here: Ink and React stay out of every other command's start-up.
      const { runUi } = await import('../ui/run.js');
      await runUi(ctx, source, where ? { where } : {});
    });
  example(cmd, 'tapline ui', 'tapline ui shop --where "status>=500"');
};
