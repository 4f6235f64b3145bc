import { contractRoutes } from '@tapline/shared/lean';
import type { Request, Router } from 'express';
import { ipKeyGenerator, rateLimit } from 'express-rate-limit';
import type { Deps } from '../deps.js';
import { HttpError } from '../http/errors.js';
import { bearerToken } from '../http/mount.js';
import { mountTable } from '../http/table.js';
import { hashPassword, verifyPassword } from './passwords.js';
import { revokeToken } from './tokens.js';
import { findUserByEmail, setPasswordHash } from './users.js';

/** Tokens from a password log-in last this long; admin-made tokens choose their own expiry. */
export const LOGIN_TOKEN_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * 30 a minute per client address (by --trust-proxy). The library's own checks are off: each
 * printed a multi-line stack trace through console.error for what a client sent (an
 * X-Forwarded-For the daemon does not trust, an address that is not one); the key is always an
 * address here (IPv6 clients counted by /56, the library's default).
 */
function passwordLimit(deps: Deps, message: string, skip?: (req: Request) => Promise<boolean>) {
  return rateLimit({
    windowMs: 60_000,
    limit: 30,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    handler: (_req, _res, next) => next(new HttpError(429, 'rate_limited', message)),
    keyGenerator: (req) => ipKeyGenerator(deps.clientAddress(req) ?? 'unknown'),
    validate: false,
    ...(skip ? { skip } : {}),
  });
}

export function authRoutes(router: Router, deps: Deps): void {
  // Slows password guessing; a person logs in a few times a day.
  router.post(contractRoutes.createToken.path, passwordLimit(deps, 'Too many log-in attempts; wait a minute'));
  // A budget of its own, spent only by requests that reach the check of the current password: a
  // stolen token guessing it. The rest is refused before any password is looked at.
  router.post(
    contractRoutes.changePassword.path,
    passwordLimit(deps, 'Too many password changes; wait a minute', async (req) => {
      const token = bearerToken(req.headers.authorization ?? '');
      const verified = token === undefined ? undefined : await deps.tokens.verify(token);
      return !(
        verified &&
        'principal' in verified &&
        verified.principal.scope === 'full' &&
        verified.principal.sourceId === null
      );
    }),
  );

  mountTable(router, deps, 'auth', {
    createToken: async ({ body }) => {
      const user = await findUserByEmail(deps.db, body.email);
      // Same answer, and the same time spent, for an unknown email and a wrong password.
      const ok = await verifyPassword(body.password, user?.password_hash ?? null);
      if (!user || !ok)
        throw new HttpError(401, 'login_failed', 'Invalid email or password', undefined, {
          reason: 'bad_credentials',
          tokenId: null,
        });
      const expiresAt = new Date(deps.clock.now().getTime() + LOGIN_TOKEN_LIFETIME_MS);
      const issued = await deps.tokens.issue({ userId: user.id, scope: 'full', expiresAt });
      return { token: issued.token, expiresAt: issued.expiresAt };
    },

    // Logging out: the caller's own token only, so no token id travels and none can be guessed.
    revokeOwnToken: async (_input, { principal }) => {
      await revokeToken(deps.db, deps.clock, principal.tokenId);
      return undefined;
    },

    // The caller's own password only (docs/decisions.md §3.8): a token reaches no other account,
    // and one restricted to a source not even its own (`access: account`).
    changePassword: async ({ body }, { principal }) => {
      const { user, tokenId } = principal;
      const row = await deps.db
        .selectFrom('users')
        .select('password_hash')
        .where('id', '=', user.id)
        .executeTakeFirstOrThrow();
      // A stolen token alone must not take the account over: once there is a password, it is asked for.
      if (row.password_hash !== null && !(await verifyPassword(body.currentPassword ?? '', row.password_hash))) {
        throw new HttpError(403, 'wrong_password', 'currentPassword is missing or wrong', undefined, {
          reason: 'bad_credentials',
          tokenId,
        });
      }
      await setPasswordHash(deps.db, deps.clock, user.id, await hashPassword(body.newPassword));
      return undefined;
    },

    me: (_input, { principal }) => {
      const { user, tokenId, scope, sourceId } = principal;
      return Promise.resolve({ id: user.id, email: user.email, name: user.name, tokenId, scope, sourceId });
    },
  });
}
