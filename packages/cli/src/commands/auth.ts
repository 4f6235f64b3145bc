import type { Command } from 'commander';
import { contract, type Me } from '@tapline/shared';
import type { CliContext } from '../context.js';
import { CliError, EXIT } from '../exit-codes.js';
import { example } from '../help.js';
import type { Register } from '../register.js';
import { tokenExpiry } from '../token-claims.js';

export interface AuthStatus {
  readonly url: string;
  readonly urlFrom: string;
  readonly tokenFrom: string;
  readonly user: Pick<Me, 'id' | 'email' | 'name'>;
  readonly tokenId: string;
  readonly scope: Me['scope'];
  readonly sourceId: string | null;
  /** ISO date, or null for a token that never expires. */
  readonly expiresAt: string | null;
}

const NOT_LOGGED_IN_HINT =
  'log in with `tapline login --email <you>`, pass --token, or start `taplined` on this machine';

/**
 * `tapline auth status`: who the token is, at which daemon, where the token came from, its scope
 * and expiry. Exit 0 only when the daemon accepts a token: 4 when there is none or it is refused,
 * 3 when the daemon cannot be reached, so a script can branch on `tapline auth status`.
 */
export async function authStatus(ctx: CliContext): Promise<AuthStatus> {
  if (!ctx.tokenFrom || !ctx.token)
    throw new CliError(
      EXIT.AUTH,
      `not logged in: no token (looked at --token, TAPLINE_TOKEN, ${ctx.home}/credentials and ${ctx.home}/token)`,
      NOT_LOGGED_IN_HINT,
    );
  const me = await ctx.client.call(contract.me);
  const expiry = tokenExpiry(ctx.token);
  return {
    url: ctx.url,
    urlFrom: ctx.urlFrom,
    tokenFrom: ctx.tokenFrom,
    user: { id: me.id, email: me.email, name: me.name },
    tokenId: me.tokenId,
    scope: me.scope,
    sourceId: me.sourceId,
    expiresAt: expiry?.toISOString() ?? null,
  };
}

function untilText(expiresAt: string | null, now: number): string {
  if (!expiresAt) return 'never expires';
  const days = Math.round((Date.parse(expiresAt) - now) / 86_400_000);
  return `expires ${expiresAt}${days >= 1 ? ` (in ${days} day${days === 1 ? '' : 's'})` : ' (within a day)'}`;
}

export function printAuthStatus(ctx: CliContext, s: AuthStatus, now = Date.now()): void {
  if (ctx.mode !== 'table') return ctx.print(JSON.stringify(s));
  const c = ctx.colors;
  const restricted = s.sourceId ? `, only source ${s.sourceId}` : '';
  ctx.print(`daemon   ${s.url}  ${c.dim(`(from ${s.urlFrom})`)}`);
  ctx.print(`user     ${s.user.email} (${s.user.name})`);
  ctx.print(`token    ${s.scope} scope${restricted}, ${untilText(s.expiresAt, now)}, from ${s.tokenFrom}`);
}

export const registerAuth: Register = (program, context) => {
  const auth = program.command('auth').description('the login: who the token is and where it comes from');
  const cmd = auth
    .command('status')
    .description(
      'who the token is, at which daemon, where it came from, its scope and expiry; exit 4 when not logged in or refused',
    )
    .action(async (_opts: unknown, command: Command) => {
      const ctx = context(command, { requireToken: false });
      printAuthStatus(ctx, await authStatus(ctx));
    });
  example(cmd, 'tapline auth status', 'tapline auth status --json | jq -r .expiresAt');
};
