import { z } from 'zod';

const Claims = z.object({ exp: z.number().optional() });

/**
 * When a Tapline token expires, read from its own `exp` claim (tokens are JWTs, docs/api.md):
 * the daemon answers who a token is, not when it ends. Unverified, so for display only.
 * Null for a token that never expires or is not a JWT.
 */
export function tokenExpiry(token: string): Date | null {
  const payload = token.split('.')[1];
  if (!payload) return null;
  try {
    const claims = Claims.safeParse(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')));
    return claims.success && claims.data.exp !== undefined ? new Date(claims.data.exp * 1000) : null;
  } catch {
    return null;
  }
}
