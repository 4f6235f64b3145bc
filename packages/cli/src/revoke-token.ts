import { ApiError, contract, createClient } from '@tapline/shared';
import { toCliError } from './exit-codes.js';

/** What became of the stored token at the daemon. */
export type Revocation = 'revoked' | 'already-invalid' | 'not-revoked';

/** Revokes `token` at the daemon; never throws: logging out must work with the daemon gone. */
export async function revokeAt(url: string, token: string): Promise<{ revocation: Revocation; reason: string | null }> {
  try {
    await createClient({ baseUrl: url, token, timeoutMs: 10_000 }).call(contract.revokeOwnToken);
    return { revocation: 'revoked', reason: null };
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return { revocation: 'already-invalid', reason: null };
    return { revocation: 'not-revoked', reason: toCliError(error).message };
  }
}
