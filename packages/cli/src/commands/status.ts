import { contract, type Me } from '@tapline/shared';
import type { CliContext } from '../context.js';

export interface Status {
  readonly url: string;
  readonly version: string;
  readonly health: 'ok';
  readonly tokenFrom: string | null;
  /** Who the token belongs to; null when no token was found. */
  readonly user: Me | null;
}

/** `tapline status`: daemon URL, version, health, and who the token belongs to. */
export async function status(ctx: CliContext): Promise<Status> {
  const health = await ctx.client.call(contract.health);
  const user = ctx.tokenFrom ? await ctx.client.call(contract.me) : null;
  return { url: ctx.url, version: health.version, health: health.status, tokenFrom: ctx.tokenFrom, user };
}

export function printStatus(ctx: CliContext, s: Status): void {
  if (ctx.mode !== 'table') return ctx.print(JSON.stringify(s));
  const c = ctx.colors;
  ctx.print(`daemon   ${s.url}  ${c.green(s.health)}  v${s.version}`);
  if (!s.user) return ctx.print(`token    ${c.yellow('none found')}`);
  const restricted = s.user.sourceId ? `, only source ${s.user.sourceId}` : '';
  ctx.print(`user     ${s.user.email} (${s.user.name})`);
  ctx.print(`token    ${s.user.scope} scope${restricted}, from ${s.tokenFrom}`);
}
