import { Command, CommanderError } from 'commander';
import pkg from '../package.json' with { type: 'json' };
import { registerCopyCommand } from './commands/copy.js';
import { registerServe } from './commands/serve.js';
import { registerStorageCommands } from './commands/storage.js';
import { registerTokenCommands } from './commands/token.js';
import { registerUserCommands } from './commands/user.js';
import { ExitError } from './exit-error.js';

// The bundle's one export, for its launcher (launch.ts): the code cache is made under it.
export { underStartFlags } from './heap-limits.js';

/** The program: one module per command in commands/; the order here is the order of `--help`. */
function program(): Command {
  const cmd = new Command('taplined')
    .description('Tapline daemon: stores HTTP traffic in SQLite or PostgreSQL and serves the REST API.')
    .version(pkg.version);
  registerServe(cmd);
  registerUserCommands(cmd);
  registerTokenCommands(cmd);
  registerStorageCommands(cmd);
  registerCopyCommand(cmd);
  exitOverrideAll(cmd);
  return cmd;
}

/** Every command throws instead of exiting, so that reportFailure sets the exit code. */
function exitOverrideAll(command: Command): void {
  command.exitOverride();
  for (const sub of command.commands) exitOverrideAll(sub);
}

/** The exit code and message for what a command threw. */
function reportFailure(error: unknown): void {
  if (error instanceof CommanderError) {
    process.exitCode =
      error.exitCode === 0 || error.code === 'commander.helpDisplayed' || error.code === 'commander.version' ? 0 : 2;
  } else if (error instanceof ExitError) {
    // UsageError, DatabaseLocatorError (2); StartError, CopyError (1); a command's own (either).
    process.stderr.write(`taplined: ${error.message}\n`);
    process.exitCode = error.exitCode;
  } else {
    process.stderr.write(`taplined: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}

// A reader that closed the pipe early (`taplined --help | head`, `token list | head -1`) is no
// failure: without this, Node threw the EPIPE as an unhandled 'error' event with a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
});
// No top-level await: the bundle is CommonJS, so that V8's code cache can be used (docs/performance.md).
program().parseAsync(process.argv).catch(reportFailure);
