import type { Command, CommanderError } from 'commander';
import { CliError, EXIT } from './exit-codes.js';

/** Commander's ends that are no failure (help asked for, `--version`) or that printed help already. */
const NOT_FAILURES = new Set(['commander.helpDisplayed', 'commander.version', 'commander.help']);

/** `tapline traffic list`: the words a user types to reach `cmd`. */
export function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** `--page` of `--page <n>`, `--output` of `-o, --output <file>`. */
const flagName = (flags: string): string => {
  const names = flags.split(/[ ,|]+/).filter((f) => f.startsWith('-'));
  return names.find((f) => f.startsWith('--')) ?? names[0] ?? flags;
};

/**
 * Commander's message in the CLI's own words: no `error: ` (the entry file writes `tapline: `),
 * one line, and a bad flag value as `--page must be a whole number from 1 (got -1)`. The
 * parsers' reasons are written to follow the flag's name (options.ts).
 */
export function usageMessage(message: string): string {
  const text = message.replace(/^error: /, '');
  const invalid = /^option '([^']*)' argument '(.*)' is invalid\. (.*)$/s.exec(text);
  if (invalid) return `${flagName(invalid[1] ?? '')} ${invalid[3] ?? ''} (got ${invalid[2] ?? ''})`;
  return text
    .split('\n')
    .map((line) => line.replace(/^\(Did you mean/, '(did you mean'))
    .join(' ');
}

/**
 * What `cmd`'s exit override throws: a usage error (exit 2) that names the command's `--help`,
 * so every error line of the CLI has one form; help and `--version` pass through as they are.
 */
export function usageFailure(error: CommanderError, cmd: Command): Error {
  if (error.exitCode === 0 || NOT_FAILURES.has(error.code)) return error;
  return new CliError(EXIT.USAGE, usageMessage(error.message), `see \`${commandPath(cmd)} --help\``);
}
