import { Command, CommanderError, Option } from 'commander';
import pkg from '../package.json' with { type: 'json' };
import { type CliContext, createContext, type GlobalOptions, noToken } from './context.js';
import { printStatus, status } from './commands/status.js';
import { EXIT, toCliError, type ExitCode } from './exit-codes.js';
import type { Io } from './io.js';
import type { ContextFactory, Register } from './register.js';
import { usageFailure } from './usage-errors.js';

import { example } from './help.js';
import { registerCompletion } from './commands/completion.js';
import { registerLogin } from './commands/login.js';
import { registerLogs } from './commands/logs.js';
import { registerProxy } from './commands/proxy.js';
import { registerRecord } from './commands/record.js';
import { registerImport } from './commands/import.js';
import { registerSources } from './commands/sources.js';
import { registerTraffic } from './commands/traffic.js';
import { registerWebhooks } from './commands/webhooks.js';
import { registerWebhookDeliveries } from './commands/webhook-deliveries.js';
import { registerTail } from './commands/tail.js';
import { registerUi } from './commands/ui.js';
import { registerOpen } from './commands/open.js';
import { registerStats } from './commands/stats.js';
import { registerAlerts } from './commands/alerts.js';
import { registerRoutes } from './commands/routes.js';
import { registerApi } from './commands/api/api.register.js';
import { registerAuth } from './commands/auth.js';
import { registerLogout } from './commands/logout.js';

const registerStatus: Register = (program, context) => {
  const cmd = program
    .command('status')
    .description(
      'daemon URL, version, health, and who the token belongs to; exit 4 without a token, as every command that needs one',
    )
    .action(async (_opts: unknown, command: Command) => {
      const ctx = context(command, { requireToken: false });
      const found = await status(ctx);
      printStatus(ctx, found);
      if (!found.user) throw noToken(ctx.home);
    });
  example(cmd, 'tapline status');
};

export const registrations: Register[] = [
  registerStatus,
  registerLogin,
  registerLogout,
  registerAuth,
  registerSources,
  registerTraffic,
  registerLogs,
  registerWebhooks,
  registerWebhookDeliveries,
  registerRecord,
  registerImport,
  registerProxy,
  registerCompletion,
  registerTail,
  registerUi,
  registerStats,
  registerRoutes,
  registerAlerts,
  registerApi,
  registerOpen,
];

/**
 * The program; `onContext` learns each command's context as it is made, so a failure can be told
 * with what the command knew (the daemon's URL, where the token came from).
 */
export function buildProgram(io: Io, onContext: (ctx: CliContext) => void): Command {
  const program = new Command('tapline')
    .description('Tapline CLI: list traffic sources, read and tail HTTP traffic, manage webhooks.')
    .version(pkg.version)
    .option('--url <url>', 'daemon URL (env TAPLINE_URL, default http://127.0.0.1:7468)')
    .option('--token <token>', 'API token (env TAPLINE_TOKEN, else `tapline login`, else <home>/token)')
    .option('--home <dir>', 'Tapline home (env TAPLINE_HOME, default $XDG_DATA_HOME/tapline or ~/.local/share/tapline)')
    .option('--json', "print the API's JSON answer unchanged")
    .option('--ndjson', 'print one JSON object per line')
    .option('--no-color', 'no colours (also NO_COLOR)')
    .addOption(new Option('--debug', 'show stack traces of unexpected errors').hideHelp(false))
    // Commander's own `error: …` lines are not written: runCli writes every failure as `tapline: …`.
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      outputError: () => undefined,
    });
  example(program, 'tapline status', 'tapline traffic list shop --status 5xx --since 15m');
  const context: ContextFactory = (cmd, options) => {
    const ctx = createContext(cmd.optsWithGlobals<GlobalOptions>(), io, options);
    onContext(ctx);
    return ctx;
  };
  for (const register of registrations) register(program, context);
  const exitAll = (cmd: Command) => {
    cmd.exitOverride((error) => {
      throw usageFailure(error, cmd);
    });
    cmd.commands.forEach(exitAll);
  };
  exitAll(program);
  return program;
}

/** Runs the CLI on `argv` (without node and script) and returns the exit code; never exits. */
export async function runCli(argv: readonly string[], io: Io): Promise<ExitCode> {
  let ctx: CliContext | undefined;
  const program = buildProgram(io, (made) => (ctx = made));
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return EXIT.OK;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 || error.code === 'commander.helpDisplayed' || error.code === 'commander.version'
        ? EXIT.OK
        : EXIT.USAGE;
    }
    const failure = toCliError(error, ctx);
    // An empty message: the command has said what went wrong already (`webhooks test`). The
    // prefix names the program, so a message that begins with it (`tapline ui needs …`) loses it.
    if (failure.message) io.stderr.write(`tapline: ${failure.message.replace(/^tapline:? /, '')}\n`);
    if (failure.hint) io.stderr.write(`  ${failure.hint}\n`);
    if (failure.exitCode === EXIT.UNEXPECTED && argv.includes('--debug') && error instanceof Error && error.stack)
      io.stderr.write(`${error.stack}\n`);
    return failure.exitCode;
  }
}
