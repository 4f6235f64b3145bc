import type { Command } from 'commander';
import type { CliContext } from './context.js';

/** Builds a command's context on demand, so `--help` and usage errors need no token or daemon. */
export type ContextFactory = (cmd: Command, options?: { requireToken?: boolean }) => CliContext;

/**
 * How a command module adds itself to the program. In its own module so that commands never
 * import their dispatcher (program.ts imports them).
 */
export type Register = (program: Command, context: ContextFactory) => void;
