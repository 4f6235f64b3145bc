import { ApiError, contract, createClient, DEFAULT_URL } from '@tapline/shared';
import type { Credentials } from './credentials.js';
import { readEndpoint } from './credentials.js';
import { toCliError } from './exit-codes.js';
import { tokenId } from './token-claims.js';

/** What became of the stored token at the daemon. */
export type Revocation = 'revoked' | 'already-invalid' | 'not-revoked';

export interface RevokeResult {
  readonly revocation: Revocation;
  /** Why the token could not be revoked (daemon unreachable...); null otherwise. */
  readonly reason: string | null;
  /** The token's id, for `taplined token revoke` when the CLI could not revoke it; null for a token that is not a JWT. */
  readonly tokenId: string | null;
}

/**
 * The daemon a stored login belongs to, whatever --url says now: the URL kept with it, else the
 * one this home finds without flags (daemon.json, then the default), as the login itself did.
 */
export const loginUrl = (stored: Credentials, home: string): string =>
  stored.url ?? readEndpoint(home)?.url ?? DEFAULT_URL;

/** Revokes `token` at the daemon; never throws: logging out must work with the daemon gone. */
export async function revokeAt(url: string, token: string): Promise<RevokeResult> {
  const id = tokenId(token);
  try {
    await createClient({ baseUrl: url, token, timeoutMs: 10_000 }).call(contract.revokeOwnToken);
    return { revocation: 'revoked', reason: null, tokenId: id };
  } catch (error) {
    if (error instanceof ApiError && error.status === 401)
      return { revocation: 'already-invalid', reason: null, tokenId: id };
    return { revocation: 'not-revoked', reason: toCliError(error).message, tokenId: id };
  }
}

/**
 * The lines for a token the CLI let go of but could not revoke: it stays valid, so say which it
 * is and the command that revokes it (only the daemon's admin command revokes another token).
 */
export function unrevokedLines(what: string, r: Pick<RevokeResult, 'reason' | 'tokenId'>): string[] {
  return [
    `${what} could not be revoked (${r.reason ?? 'unknown'}); it stays valid until it expires`,
    ...(r.tokenId ? [`  revoke it on the daemon's machine: taplined token revoke ${r.tokenId}`] : []),
  ];
}
