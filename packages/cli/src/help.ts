import type { Command } from 'commander';

/** Adds an example to a command's --help, as every command has one. */
export const example = (cmd: Command, ...lines: string[]) =>
  cmd.addHelpText('after', `\nExample:\n${lines.map((l) => `  $ ${l}`).join('\n')}`);
