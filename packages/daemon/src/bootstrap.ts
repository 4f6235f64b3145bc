import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { z } from 'zod';
import { tokenFile } from '@tapline/shared/lean';
import type { TokenService } from './auth/tokens.js';
import { countUsers, createUserUnlessTaken, LOCAL_USER_EMAIL } from './auth/users.js';
import type { Db } from './db/open.js';
import type { Clock } from './clock.js';
import { schemaOnFirstUse } from './zod-on-first-use.js';

/**
 * Which token the first start wrote, and where: kept as a setting (a row of the key-value table,
 * so no column of `tokens` exists for one row's sake), for `taplined token list` to name it.
 */
const FIRST_START_TOKEN = 'first_start_token';
const firstStartToken = schemaOnFirstUse((z) => z.object({ tokenId: z.string(), writtenTo: z.string() }));
type FirstStartToken = z.infer<Awaited<ReturnType<typeof firstStartToken>>>;

/** Private files: the home is 0700 and the token 0600, whatever the umask. */
export function writePrivateFile(path: string, text: string): void {
  writeFileSync(path, text, { mode: 0o600 });
  chmodSync(path, 0o600);
}

export function ensureHome(home: string): void {
  mkdirSync(home, { recursive: true, mode: 0o700 });
}

/**
 * First start on an empty database: make the local user and write a full-scope token for it to
 * `<home>/token`, so a laptop user needs no set-up. Returns the token file's path when written.
 */
export async function bootstrapLocalUser(
  db: Db,
  clock: Clock,
  tokens: TokenService,
  home: string,
): Promise<string | null> {
  if ((await countUsers(db)) > 0) return null;
  // Daemons starting together on one new PostgreSQL database all see no user: one makes it.
  const user = await createUserUnlessTaken(db, clock, { email: LOCAL_USER_EMAIL, name: 'Local user' });
  if (!user) return null;
  const { id, token } = await tokens.issue({ userId: user.id, scope: 'full' });
  const path = tokenFile(home);
  writePrivateFile(path, `${token}\n`);
  await db
    .insertInto('settings')
    .values({ key: FIRST_START_TOKEN, value: JSON.stringify({ tokenId: id, writtenTo: `${hostname()}:${path}` }) })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  return path;
}

export async function readFirstStartToken(db: Db): Promise<FirstStartToken | undefined> {
  const row = await db.selectFrom('settings').select('value').where('key', '=', FIRST_START_TOKEN).executeTakeFirst();
  const parsed = row ? (await firstStartToken()).safeParse(JSON.parse(row.value)) : undefined;
  return parsed?.success ? parsed.data : undefined;
}
