import { hashPassword } from '../auth/passwords.js';
import { deleteUser, findUserByEmail, listUsersWithCounts, setPasswordHash } from '../auth/users.js';
import { type Clock, isoNow } from '../clock.js';
import type { Db } from '../db/open.js';
import { checkNewPassword, formatTable } from './commands.js';
import { ExitError } from '../exit-error.js';

/** `taplined user list`: one row per user; PASSWORD says whether `tapline login` can work for them. */
export async function userTable(db: Db, clock: Clock): Promise<string> {
  const rows = await listUsersWithCounts(db, isoNow(clock));
  return formatTable([
    ['ID', 'EMAIL', 'NAME', 'PASSWORD', 'SOURCES', 'TOKENS', 'CREATED'],
    ...rows.map((r) => [
      r.id,
      r.email,
      r.name,
      r.has_password ? 'yes' : 'no',
      String(Number(r.sources)),
      String(Number(r.tokens)),
      r.created_at,
    ]),
  ]);
}

async function existingUser(db: Db, email: string) {
  const user = await findUserByEmail(db, email);
  if (!user) throw new ExitError(`no user with email ${email.trim()}; see: taplined user list`);
  return user;
}

/** `taplined user passwd`: tokens already issued stay valid (docs/decisions.md §3.8). */
export async function setPassword(db: Db, clock: Clock, email: string, password: string): Promise<string> {
  const user = await existingUser(db, email);
  await setPasswordHash(db, clock, user.id, await hashPassword(await checkNewPassword(password)));
  return user.email;
}

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * `taplined user remove`: the user, their tokens (they stop working at the next request) and,
 * only with `force`, the traffic sources they own with everything recorded in them.
 */
export async function removeUser(db: Db, email: string, force: boolean): Promise<string> {
  const user = await existingUser(db, email);
  const sources = await db
    .selectFrom('traffic_sources')
    .select('name')
    .where('user_id', '=', user.id)
    .orderBy('name')
    .execute();
  if (sources.length > 0 && !force) {
    const them = sources.length === 1 ? 'it' : 'them';
    throw new ExitError(
      `${user.email} owns ${count(sources.length, 'traffic source', 'traffic sources')} (${sources.map((s) => s.name).join(', ')}); remove ${them} first, or pass --force to delete ${them} and ${sources.length === 1 ? 'its' : 'their'} traffic with the user`,
    );
  }
  const tokens = await db
    .selectFrom('tokens')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', user.id)
    .executeTakeFirstOrThrow();
  await deleteUser(db, user.id);
  return `removed ${user.email}, its ${count(Number(tokens.n), 'token', 'tokens')} and ${count(sources.length, 'traffic source with its traffic', 'traffic sources with their traffic')}`;
}
