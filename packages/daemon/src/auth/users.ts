import { type Clock, isoNow, newId } from '../clock.js';
import type { Db } from '../db/open.js';
import type { UsersTable } from './table.js';

export interface User {
  readonly id: string;
  readonly email: string;
  readonly name: string;
}

export const LOCAL_USER_EMAIL = 'local@localhost';

const toUser = (row: Pick<UsersTable, 'id' | 'email' | 'name'>): User => ({
  id: row.id,
  email: row.email,
  name: row.name,
});

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

type NewUser = { email: string; name?: string | undefined; passwordHash?: string | null };

function userRow(clock: Clock, input: NewUser) {
  const now = isoNow(clock);
  const email = normalizeEmail(input.email);
  return {
    id: newId(),
    email,
    name: input.name?.trim() || email.split('@')[0] || email,
    password_hash: input.passwordHash ?? null,
    created_at: now,
    updated_at: now,
  };
}

export async function createUser(db: Db, clock: Clock, input: NewUser): Promise<User> {
  const row = userRow(clock, input);
  await db.insertInto('users').values(row).execute();
  return toUser(row);
}

/** The user, or `undefined` when one with that email exists already (another daemon made it first). */
export async function createUserUnlessTaken(db: Db, clock: Clock, input: NewUser): Promise<User | undefined> {
  const row = userRow(clock, input);
  const inserted = await db
    .insertInto('users')
    .values(row)
    .onConflict((oc) => oc.column('email').doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted ? toUser(row) : undefined;
}

export async function findUserByEmail(db: Db, email: string) {
  return db.selectFrom('users').selectAll().where('email', '=', normalizeEmail(email)).executeTakeFirst();
}

export async function countUsers(db: Db): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export { toUser };

export async function setPasswordHash(db: Db, clock: Clock, userId: string, passwordHash: string): Promise<void> {
  await db
    .updateTable('users')
    .set({ password_hash: passwordHash, updated_at: isoNow(clock) })
    .where('id', '=', userId)
    .execute();
}

/** Every user, oldest first, with how many sources they own and how many of their tokens still work at `now`. */
export async function listUsersWithCounts(db: Db, now: string) {
  return db
    .selectFrom('users')
    .select((eb) => [
      'users.id',
      'users.email',
      'users.name',
      'users.created_at',
      eb('users.password_hash', 'is not', null).as('has_password'),
      eb
        .selectFrom('traffic_sources')
        .select((s) => s.fn.countAll<number>().as('n'))
        .whereRef('traffic_sources.user_id', '=', 'users.id')
        .as('sources'),
      eb
        .selectFrom('tokens')
        .select((s) => s.fn.countAll<number>().as('n'))
        .whereRef('tokens.user_id', '=', 'users.id')
        .where('tokens.revoked_at', 'is', null)
        .where((w) => w.or([w('tokens.expires_at', 'is', null), w('tokens.expires_at', '>', now)]))
        .as('tokens'),
    ])
    .orderBy('users.created_at')
    .orderBy('users.email')
    .execute();
}

/** Deletes the user; their tokens and sources go with them (foreign keys cascade), and with the sources all their traffic. */
export async function deleteUser(db: Db, userId: string): Promise<void> {
  await db.deleteFrom('users').where('id', '=', userId).execute();
}
