import type { Command } from 'commander';
import { ApiError, contract, credentialsFile, endpointFile } from '@tapline/shared';
import type { CliContext } from '../context.js';
import { readCredentials, writeCredentials } from '../credentials.js';
import { CliError, EXIT, usage } from '../exit-codes.js';
import { example } from '../help.js';
import { readAll } from '../io.js';
import type { Register } from '../register.js';
import { loginUrl, revokeAt, type RevokeResult, unrevokedLines } from '../revoke-token.js';

export interface LoginResult {
  readonly email: string;
  readonly url: string;
  readonly credentials: string;
  readonly expiresAt: string | null;
  /** The login this one replaced, and what became of its token; null when there was none. */
  readonly previous: (RevokeResult & { readonly url: string }) | null;
}

async function askPassword(ctx: CliContext, fromStdin: boolean | undefined): Promise<string> {
  // One trailing newline is what `echo` and here-strings add; it is not part of the password.
  if (fromStdin) return (await readAll(ctx.io.stdin)).replace(/\r?\n$/, '');
  if (!ctx.io.stdin.isTTY) throw usage('no terminal to ask for the password on', 'pipe it in with --password-stdin');
  const { default: password } = await import('@inquirer/password');
  try {
    // Io's stderr is typed by what commands write; the prompt runs only on a terminal, where it is the process's stderr stream.
    return await password(
      { message: 'Password', mask: '*' },
      // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- see above
      { input: ctx.io.stdin, output: ctx.io.stderr as NodeJS.WritableStream, signal: ctx.io.signal },
    );
  } catch (error) {
    // Ctrl-C at the prompt (ExitPromptError, AbortPromptError) ends cleanly, as Ctrl-C does elsewhere.
    if (error instanceof Error && /^(Exit|Abort)PromptError$/.test(error.name))
      throw new CliError(EXIT.OK, 'cancelled; not logged in');
    throw error;
  }
}

/** `tapline login`: trades email and password for a token, kept in `<home>/credentials` (0600). */
export async function login(ctx: CliContext, email: string, passwordStdin?: boolean): Promise<LoginResult> {
  const replaced = readCredentials(ctx.home);
  const password = await askPassword(ctx, passwordStdin);
  if (!password) throw usage('the password is empty');
  let issued: { token: string; expiresAt: string | null };
  try {
    issued = await ctx.client.call(contract.createToken, { body: { email, password } });
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      throw new CliError(
        EXIT.AUTH,
        'wrong email or password',
        `the daemon's admin sets a password with \`taplined user passwd ${email}\``,
      );
    }
    throw error;
  }
  // The URL is kept only when chosen (--url, TAPLINE_URL, an earlier login): one found in
  // <home>/daemon.json or the default must be found afresh, as a restarted daemon may move.
  const chosen = ctx.urlFrom !== 'default' && ctx.urlFrom !== endpointFile(ctx.home);
  let credentials: string;
  try {
    credentials = writeCredentials(ctx.home, { token: issued.token, ...(chosen ? { url: ctx.url } : {}), email });
  } catch (error) {
    // A token nobody holds must not stay valid for 30 days: take it back before failing.
    const { revocation } = await revokeAt(ctx.url, issued.token);
    const reason = error instanceof Error ? error.message : String(error);
    const fate =
      revocation === 'not-revoked'
        ? 'and the new token could not be revoked; it expires on its own'
        : 'so the new token was revoked';
    throw new CliError(
      EXIT.UNEXPECTED,
      `cannot save the login to ${credentialsFile(ctx.home)} (${reason}); ${fate}`,
      'make the home writable, or choose another with --home or TAPLINE_HOME',
    );
  }
  // The replaced login's token is held by nobody now: revoked where it was issued, or named.
  const previousUrl = replaced && loginUrl(replaced, ctx.home);
  const previous =
    replaced && previousUrl ? { url: previousUrl, ...(await revokeAt(previousUrl, replaced.token)) } : null;
  return { email, url: ctx.url, credentials, expiresAt: issued.expiresAt, previous };
}

function printLogin(ctx: CliContext, result: LoginResult): void {
  if (ctx.mode !== 'table') return ctx.print(JSON.stringify(result));
  const expiry = result.expiresAt ? `, expires ${result.expiresAt}` : '';
  ctx.print(`logged in to ${result.url} as ${result.email}${expiry}`);
  ctx.note(ctx.colors.dim(`token stored in ${result.credentials}`));
  const previous = result.previous;
  if (previous?.revocation === 'revoked') ctx.note(`the token of the previous login was revoked at ${previous.url}`);
  if (previous?.revocation === 'not-revoked')
    for (const line of unrevokedLines('the token of the previous login', previous)) ctx.note(ctx.colors.yellow(line));
}

export const registerLogin: Register = (program, context) => {
  const cmd = program
    .command('login')
    .description(
      'log in with email and password; later commands use the stored token (a login it replaces has its token revoked)',
    )
    .requiredOption('--email <email>', 'your email address')
    .option('--password-stdin', 'read the password from standard input instead of asking')
    .action(async (opts: { email: string; passwordStdin?: boolean }, command: Command) => {
      const ctx = context(command, { requireToken: false });
      printLogin(ctx, await login(ctx, opts.email, opts.passwordStdin));
    });
  example(
    cmd,
    'tapline login --email ana@example.com',
    'printf %s "$PASSWORD" | tapline login --email ana@example.com --password-stdin',
  );
};
