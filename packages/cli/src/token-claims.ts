import { z } from 'zod';

const Claims = z.object({ exp: z.number().optional(), jti: z.string().optional() });

/**
 * A Tapline token's own claims (tokens are JWTs, docs/api.md), read without the key: unverified,
 * so for what the CLI tells a person only (when it expires, which id to revoke). Undefined for
 * a token that is not a JWT.
 */
function claims(token: string): z.infer<typeof Claims> | undefined {
  const payload = token.split('.')[1];
  if (!payload) return undefined;
  try {
    const parsed = Claims.safeParse(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * When a token expires, from its `exp` claim: the daemon answers who a token is, not when it
 * ends. Null for a token that never expires or is not a JWT.
 */
export function tokenExpiry(token: string): Date | null {
  const exp = claims(token)?.exp;
  return exp === undefined ? null : new Date(exp * 1000);
}

/** The token's id (`jti`), as `taplined token list` shows it and `taplined token revoke` takes it. */
export const tokenId = (token: string): string | null => claims(token)?.jti ?? null;
