import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { tokenFile } from '@tapline/shared';
import type { TokenService } from './auth/tokens.js';
import { countUsers, createUserUnlessTaken, LOCAL_USER_EMAIL } from './auth/users.js';
import type { Db } from './db/open.js';
import type { Clock } from './clock.js';

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
export async function bootstrapLocalUser(db: Db, clock: Clock, tokens: TokenService, home: string): Promise<string | null> {
  if ((await countUsers(db)) > 0) return null;
  // Daemons starting together on one new PostgreSQL database all see no user: one makes it.
  const user = await createUserUnlessTaken(db, clock, { email: LOCAL_USER_EMAIL, name: 'Local user' });
  if (!user) return null;
  const { token } = await tokens.issue({ userId: user.id, scope: 'full' });
  const path = tokenFile(home);
  writePrivateFile(path, `${token}\n`);
  return path;
}
