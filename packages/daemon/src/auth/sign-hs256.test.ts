import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { signHs256 } from './sign-hs256.js';

/** jose's token for the claims `issue` makes, built as tokens.ts built it before §20.26. */
async function joseToken(
  claims: { scope: string; src?: string; sub: string; jti: string; iat: number; exp?: number },
  key: Uint8Array,
): Promise<string> {
  const { scope, src, sub, jti, iat, exp } = claims;
  let jwt = new SignJWT({ scope, ...(src ? { src } : {}) })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(sub)
    .setJti(jti)
    .setIssuedAt(iat);
  if (exp !== undefined) jwt = jwt.setExpirationTime(exp);
  return jwt.sign(key);
}

describe('signHs256', () => {
  it("gives jose's SignJWT bytes for every shape of claims a token is issued with", async () => {
    const cases = [
      { scope: 'admin', sub: 'u-1', jti: 't-1', iat: 1_700_000_000 },
      { scope: 'ingest', src: 'a8f1c2d4-0000-4000-8000-000000000001', sub: 'u-2', jti: 't-2', iat: 0 },
      { scope: 'read', sub: 'ü ✓ "quoted" \\ /', jti: 't-3', iat: 1_800_000_123, exp: 1_800_086_523 },
      { scope: 'full', src: 's', sub: 'u', jti: 'j', iat: 2_000_000_000, exp: 2_000_000_001 },
    ];
    for (let round = 0; round < 8; round++) {
      const key = new Uint8Array(randomBytes(32));
      for (const claims of cases) {
        const ours = signHs256(
          {
            scope: claims.scope,
            ...(claims.src ? { src: claims.src } : {}),
            sub: claims.sub,
            jti: claims.jti,
            iat: claims.iat,
            ...(claims.exp !== undefined ? { exp: claims.exp } : {}),
          },
          key,
        );
        expect(ours).toBe(await joseToken(claims, key));
      }
    }
  });

  it('refuses a zero-length key, as jose did', async () => {
    const claims = { scope: 'full', sub: 'u', jti: 't', iat: 1 };
    await expect(joseToken(claims, new Uint8Array(0))).rejects.toThrow('Zero-length key is not supported');
    expect(() => signHs256(claims, new Uint8Array(0))).toThrow('Zero-length key is not supported');
  });
});
