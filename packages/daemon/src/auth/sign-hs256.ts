import { createHmac } from 'node:crypto';

/** The protected header of every token Tapline signs, encoded once. */
const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

/**
 * A compact JWS (a JWT) signed with HMAC-SHA256 by `node:crypto`: the very bytes jose's `SignJWT`
 * gives for the same claims, in the same order, and key (sign-hs256.test.ts), without WebCrypto,
 * whose first key import and signature in a process cost a first start 3 to 14 ms on the event
 * loop before its first request (docs/decisions.md §20.26). jose still verifies every token.
 */
export function signHs256(claims: Readonly<Record<string, unknown>>, key: Uint8Array): string {
  // As jose refused it: a damaged settings row must not issue tokens that no verification accepts.
  if (key.byteLength === 0) throw new Error('Zero-length key is not supported');
  const signed = `${HEADER}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return `${signed}.${createHmac('sha256', key).update(signed).digest('base64url')}`;
}
