import { existsSync, rmSync } from 'node:fs';
import type { Command } from 'commander';
import { ApiError, contract, createClient, credentialsFile, tokenFile } from '@tapline/shared';
import type { CliContext } from '../context.js';
import { readCredentials } from '../credentials.js';
import { toCliError } from '../exit-codes.js';
import { example } from '../help.js';
import type { Register } from '../register.js';

/** What became of the stored token at the daemon. */
export type Revocation = 'revoked' | 'already-invalid' | 'not-revoked';

export interface LogoutResult {
  readonly loggedOut: boolean;
  readonly email: string | null;
  readonly url: string;
  readonly revocation: Revocation | null;
  /** Why the token could not be revoked (daemon unreachable...); null otherwise. */
  readonly reason: string | null;
  readonly credentials: string;
}

/** Revokes `token` at the daemon; never throws: logging out must work with the daemon gone. */
export async function revokeAt(url: string, token: string): Promise<{ revocation: Revocation; reason: string | null }> {
  try {
    await createClient({ baseUrl: url, token, timeoutMs: 10_000 }).call(contract.revokeOwnToken);
    return { revocation: 'revoked', reason: null };
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return { revocation: 'already-invalid', reason: null };
    return { revocation: 'not-revoked', reason: toCliError(error).message };
  }
}

/**
 * `tapline logout`: revokes the stored token at the daemon when it answers, then forgets it.
 * Not being logged in is no error (exit 0): the goal, no stored login, already holds.
 */
export async function logout(ctx: CliContext): Promise<LogoutResult> {
  const path = credentialsFile(ctx.home);
  const stored = readCredentials(ctx.home);
  const email = stored?.email ?? null;
  if (!stored) {
    // An unreadable file is still a stored login to forget; there is no token in it to revoke.
    const had = existsSync(path);
    rmSync(path, { force: true });
    return { loggedOut: had, email, url: ctx.url, revocation: null, reason: null, credentials: path };
  }
  // ctx.url is the stored login's own URL unless --url or TAPLINE_URL says otherwise.
  const { revocation, reason } = await revokeAt(ctx.url, stored.token);
  rmSync(path, { force: true });
  return { loggedOut: true, email, url: ctx.url, revocation, reason, credentials: path };
}

export function printLogout(ctx: CliContext, r: LogoutResult): void {
  if (ctx.mode !== 'table') return ctx.print(JSON.stringify(r));
  if (!r.loggedOut) return ctx.print(`not logged in (no ${r.credentials}); nothing to do`);
  if (!r.revocation) return ctx.print(`removed ${r.credentials}, which held no readable login`);
  const who = r.email ? ` as ${r.email}` : '';
  ctx.print(`logged out of ${r.url}${who}; removed ${r.credentials}`);
  if (r.revocation === 'revoked') ctx.note('the token was revoked at the daemon');
  else if (r.revocation === 'already-invalid') ctx.note('the daemon no longer accepted the token (expired or revoked already)');
  else ctx.note(ctx.colors.yellow(`the token could not be revoked (${r.reason}); it stays valid at the daemon until it expires, unless revoked with \`taplined token revoke\``));
  if (existsSync(tokenFile(ctx.home))) ctx.note(ctx.colors.dim(`later commands use the daemon's token in ${tokenFile(ctx.home)}`));
}

export const registerLogout: Register = (program, context) => {
  const cmd = program
    .command('logout')
    .description('forget the login stored by `tapline login`, revoking its token at the daemon')
    .action(async (_opts: unknown, command: Command) => {
      const ctx = context(command, { requireToken: false });
      printLogout(ctx, await logout(ctx));
    });
  example(cmd, 'tapline logout');
};
