import { contract, formatBytes, formatLocalTime, type Me, type StorageHealth } from '@tapline/shared';
import type { CliContext } from '../context.js';

export interface Status {
  readonly url: string;
  readonly version: string;
  readonly health: 'ok';
  readonly tokenFrom: string | null;
  /** Who the token belongs to; null when no token was found. */
  readonly user: Me | null;
  /** The database's size, oldest entry and limits; null from a daemon too old to tell. */
  readonly storage: StorageHealth | null;
  /** `sqlite` or `postgres`; null from a daemon too old to tell. */
  readonly database: string | null;
}

/** `tapline status`: daemon URL, version, health, and who the token belongs to. */
export async function status(ctx: CliContext): Promise<Status> {
  const health = await ctx.client.call(contract.health);
  const user = ctx.tokenFrom ? await ctx.client.call(contract.me) : null;
  return {
    url: ctx.url,
    version: health.version,
    health: health.status,
    tokenFrom: ctx.tokenFrom,
    user,
    storage: health.storage ?? null,
    database: health.database ?? null,
  };
}

export function printStatus(ctx: CliContext, s: Status): void {
  if (ctx.mode !== 'table') return ctx.print(JSON.stringify(s));
  const c = ctx.colors;
  ctx.print(`daemon   ${s.url}  ${c.green(s.health)}  v${s.version}`);
  if (s.storage) ctx.print(`storage  ${s.database ?? 'database'} ${storageLine(s.storage)}`);
  if (!s.user) return ctx.print(`token    ${c.yellow('none found')}`);
  const restricted = s.user.sourceId ? `, only source ${s.user.sourceId}` : '';
  ctx.print(`user     ${s.user.email} (${s.user.name})`);
  ctx.print(`token    ${s.user.scope} scope${restricted}, from ${s.tokenFrom}`);
}

/** `41.2 MB, oldest entry 2026-11-01 10:00:00.000, keeps 30d, budget 2 GB`. */
export function storageLine(st: StorageHealth): string {
  const oldest = st.oldestEntryAt ? `oldest entry ${formatLocalTime(st.oldestEntryAt)}` : 'no entries';
  const keeps = st.retentionMs === null ? 'kept forever' : `keeps ${exactDuration(st.retentionMs)}`;
  const budget = st.maxBytes === null ? 'no size budget' : `budget ${formatBytes(st.maxBytes)}`;
  return `${formatBytes(st.bytes)}, ${oldest}, ${keeps}, ${budget}`;
}

/** `30d`, `36h`, `90m`: the largest unit that states the duration exactly, as `--retention` takes it. */
function exactDuration(millis: number): string {
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ] as const) {
    if (millis % size === 0) return `${millis / size}${unit}`;
  }
  return `${millis}ms`;
}
