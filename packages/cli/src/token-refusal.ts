import { type ApiError, credentialsFile } from '@tapline/shared';
import { readCredentials } from './credentials.js';
import { tokenExpiry } from './token-claims.js';

/**
 * What the CLI knew of the token it sent, for telling a person why it was refused: the part of
 * `CliContext` this needs, spelled out because context.ts imports exit-codes.ts, which imports this.
 */
export interface TokenInUse {
  readonly token: string | null;
  readonly tokenFrom: string | null;
  readonly home: string;
}

/** `2026-11-20 10:00 UTC`: a moment as a person reads it, the same on every machine. */
export const utcMinute = (date: Date): string => `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/**
 * A 401 for a token that expired, told as such, with when and how to get a new one; undefined
 * for any other refusal. The daemon's `token_expired` decides; an older daemon answers every
 * refused token alike (`token_invalid`), so then the token's own `exp` claim, past, tells.
 */
export function expiredRefusal(
  error: ApiError,
  used: TokenInUse | undefined,
): { message: string; hint?: string } | undefined {
  if (error.status !== 401 || !used?.token) return undefined;
  const expiry = tokenExpiry(used.token);
  const expired =
    error.code === 'token_expired' ||
    (error.code !== 'login_failed' && expiry !== null && expiry.getTime() <= Date.now());
  if (!expired) return undefined;
  const when = expiry ? ` at ${utcMinute(expiry)}` : '';
  if (used.tokenFrom === credentialsFile(used.home)) {
    const email = readCredentials(used.home)?.email ?? '<you>';
    return { message: `your login expired${when}; log in again with \`tapline login --email ${email}\`` };
  }
  return {
    message: `the token from ${used.tokenFrom ?? 'the command line'} expired${when}`,
    hint: "get a new one with `tapline login --email <you>`, or `taplined token create <email>` on the daemon's machine",
  };
}
