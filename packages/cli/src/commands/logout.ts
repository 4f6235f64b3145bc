import { existsSync, rmSync } from 'node:fs';
import type { Command } from 'commander';
import { credentialsFile, tokenFile } from '@tapline/shared';
import type { CliContext } from '../context.js';
import { readCredentials } from '../credentials.js';
import { example } from '../help.js';
import type { Register } from '../register.js';
import { loginUrl, type Revocation, revokeAt, unrevokedLines } from '../revoke-token.js';

export interface LogoutResult {
  readonly loggedOut: boolean;
  readonly email: string | null;
  readonly url: string;
  readonly revocation: Revocation | null;
  /** Why the token could not be revoked (daemon unreachable...); null otherwise. */
  readonly reason: string | null;
  /** The stored token's id, to revoke with `taplined token revoke` when the CLI could not. */
  readonly tokenId: string | null;
  readonly credentials: string;
}

/**
 * `tapline logout`: revokes the stored token at the daemon that issued it when that answers, then
 * forgets it. Not being logged in is no error (exit 0): the goal, no stored login, already holds.
 */
export async function logout(ctx: CliContext): Promise<LogoutResult> {
  const path = credentialsFile(ctx.home);
  const stored = readCredentials(ctx.home);
  const email = stored?.email ?? null;
  if (!stored) {
    // An unreadable file is still a stored login to forget; there is no token in it to revoke.
    const had = existsSync(path);
    rmSync(path, { force: true });
    return { loggedOut: had, email, url: ctx.url, revocation: null, reason: null, tokenId: null, credentials: path };
  }
  // Not ctx.url: another daemon than the issuer would refuse the token (401), which would read
  // as "revoked already" while the token stays valid where it was made.
  const url = loginUrl(stored, ctx.home);
  const revoked = await revokeAt(url, stored.token);
  rmSync(path, { force: true });
  return { loggedOut: true, email, url, ...revoked, credentials: path };
}

export function printLogout(ctx: CliContext, r: LogoutResult): void {
  if (ctx.mode !== 'table') return ctx.print(JSON.stringify(r));
  if (!r.loggedOut) return ctx.print(`not logged in (no ${r.credentials}); nothing to do`);
  if (!r.revocation) return ctx.print(`removed ${r.credentials}, which held no readable login`);
  const who = r.email ? ` as ${r.email}` : '';
  ctx.print(`logged out of ${r.url}${who}; removed ${r.credentials}`);
  if (r.revocation === 'revoked') ctx.note('the token was revoked at the daemon');
  else if (r.revocation === 'already-invalid')
    ctx.note('the daemon no longer accepted the token (expired or revoked already)');
  else for (const line of unrevokedLines('the token', r)) ctx.note(ctx.colors.yellow(line));
  if (existsSync(tokenFile(ctx.home)))
    ctx.note(ctx.colors.dim(`later commands use the daemon's token in ${tokenFile(ctx.home)}`));
}

export const registerLogout: Register = (program, context) => {
  const cmd = program
    .command('logout')
    .description('forget the login stored by `tapline login`, revoking its token at the daemon that issued it')
    .action(async (_opts: unknown, command: Command) => {
      const ctx = context(command, { requireToken: false });
      printLogout(ctx, await logout(ctx));
    });
  example(cmd, 'tapline logout');
};
