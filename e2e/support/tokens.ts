import { createHmac, randomBytes } from 'node:crypto';

/**
 * Token conditions for the authorization matrix: ways a client can present a token that must
 * not work, built from a real token without the daemon's key. `header` is the whole
 * `Authorization` value, or undefined for no header at all.
 */
export interface BadToken {
  readonly name: string;
  readonly header: string | undefined;
  /** 400 `Authentication token missing` or 401 `Invalid token` (docs/api.md, Authentication). */
  readonly status: 400 | 401;
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const parts = (token: string) => token.split('.') as [string, string, string];
const claimsOf = (token: string): Record<string, unknown> =>
  JSON.parse(Buffer.from(parts(token)[1], 'base64url').toString()) as Record<string, unknown>;

/** `token` is a valid full-scope token of the owner; `readToken` a valid read-scope one. */
export function badTokens(token: string, readToken: string): BadToken[] {
  const [header, payload, signature] = parts(token);
  const claims = claimsOf(token);
  const [readHeader, , readSignature] = parts(readToken);
  const hs256 = (key: Buffer, body: string) => `${body}.${createHmac('sha256', key).update(body).digest('base64url')}`;
  const withHeader = (alg: string) => `${b64({ alg, typ: 'JWT' })}.${payload}.${signature}`;
  return [
    { name: 'no Authorization header', header: undefined, status: 400 },
    { name: 'empty Authorization header', header: '', status: 400 },
    { name: 'Bearer with nothing after it', header: 'Bearer ', status: 400 },
    { name: 'Basic scheme', header: `Basic ${Buffer.from('local@localhost:secret').toString('base64')}`, status: 400 },
    { name: 'token without a scheme', header: token, status: 400 },
    { name: 'not a JWT', header: 'Bearer not-a-jwt', status: 401 },
    { name: 'three empty segments', header: 'Bearer ..', status: 401 },
    {
      name: 'garbage segments',
      header: `Bearer ${randomBytes(12).toString('base64url')}.${randomBytes(30).toString('base64url')}.${randomBytes(32).toString('base64url')}`,
      status: 401,
    },
    {
      name: 'payload not JSON',
      header: `Bearer ${header}.${Buffer.from('{"sub":').toString('base64url')}.${signature}`,
      status: 401,
    },
    {
      name: 'forged signature',
      header: `Bearer ${header}.${payload}.${randomBytes(32).toString('base64url')}`,
      status: 401,
    },
    { name: 'signature truncated', header: `Bearer ${header}.${payload}.${signature.slice(0, -4)}`, status: 401 },
    { name: 'signature of another token', header: `Bearer ${header}.${payload}.${readSignature}`, status: 401 },
    {
      name: 'signed with another key',
      header: `Bearer ${hs256(randomBytes(32), `${header}.${payload}`)}`,
      status: 401,
    },
    {
      name: 'signed with an empty key',
      header: `Bearer ${hs256(Buffer.alloc(0), `${header}.${payload}`)}`,
      status: 401,
    },
    {
      name: 'read token raised to full scope',
      header: `Bearer ${readHeader}.${b64({ ...claimsOf(readToken), scope: 'full' })}.${readSignature}`,
      status: 401,
    },
    {
      name: 'expiry removed from claims',
      header: `Bearer ${header}.${b64({ ...claims, exp: 4102444800 })}.${signature}`,
      status: 401,
    },
    { name: 'alg none, no signature', header: `Bearer ${b64({ alg: 'none', typ: 'JWT' })}.${payload}.`, status: 401 },
    { name: 'alg none, signature kept', header: `Bearer ${withHeader('none')}`, status: 401 },
    { name: 'alg HS512', header: `Bearer ${withHeader('HS512')}`, status: 401 },
    { name: 'alg HS384', header: `Bearer ${withHeader('HS384')}`, status: 401 },
    { name: 'alg RS256', header: `Bearer ${withHeader('RS256')}`, status: 401 },
    { name: 'alg ES256', header: `Bearer ${withHeader('ES256')}`, status: 401 },
    { name: 'alg PS256', header: `Bearer ${withHeader('PS256')}`, status: 401 },
    { name: 'token with trailing garbage', header: `Bearer ${token}x`, status: 401 },
    { name: 'two tokens', header: `Bearer ${token} ${token}`, status: 401 },
  ];
}
