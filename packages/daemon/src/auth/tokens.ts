import { randomBytes } from 'node:crypto';
import { errors, type JWTPayload, jwtVerify } from 'jose';
import type { Scope } from '@tapline/shared';
import { type Clock, isoNow, newId } from '../clock.js';
import type { Db } from '../db/open.js';
import { type Gathering, gatheredLookup } from '../db/gathered.js';
import { preparedLookup } from '../db/prepared.js';
import type { User } from './users.js';
import type { AuthAudit, AuthFailure } from './audit.js';
import { loadedSchemas, schemas } from '../http/schemas.js';
import { signHs256 } from './sign-hs256.js';

/** Who is calling: the token's user, and what the token lets them do. */
export interface Principal {
  readonly user: User;
  readonly tokenId: string;
  readonly scope: Scope;
  /** A token restricted to one traffic source sees only that source. */
  readonly sourceId: string | null;
}

export interface IssueOptions {
  readonly userId: string;
  readonly scope: Scope;
  readonly sourceId?: string | null;
  readonly expiresAt?: Date | null;
}

export interface IssuedToken {
  readonly id: string;
  readonly token: string;
  readonly expiresAt: string | null;
}

/** A token refused: why (for the audit line), and for an expired one when it expired (ISO 8601). */
export interface Refusal {
  readonly failure: AuthAudit;
  readonly expiredAt?: string;
}

export type Verification = { readonly principal: Principal } | Refusal;

const fail = (reason: AuthFailure, tokenId: string | null = null): Refusal => ({ failure: { reason, tokenId } });
/** Only ever said of a token whose signature verified: the time is then the issuer's, not the caller's. */
const expired = (tokenId: string | null, at: Date | string): Refusal => ({
  ...fail('expired', tokenId),
  expiredAt: new Date(at).toISOString(),
});

/** jose's errors, named for the audit line. An expired token's signature did verify, so its id holds. */
function failureOf(error: unknown): Refusal {
  if (error instanceof errors.JWTExpired) {
    const { jti, exp } = error.payload;
    const id = typeof jti === 'string' ? jti : null;
    return typeof exp === 'number' ? expired(id, new Date(exp * 1000)) : fail('expired', id);
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) return fail('bad_signature');
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported)
    return fail('bad_algorithm');
  return fail('malformed');
}

export interface TokenService {
  issue(options: IssueOptions): Promise<IssuedToken>;
  /**
   * The principal, or why the token must get a 401 (audit.ts), with its id once that is
   * trustworthy. Rejects when the database cannot answer: that is no verdict on the token.
   */
  verify(token: string): Promise<Verification>;
}

const SIGNING_KEY = 'jwt_signing_key';

/**
 * The key is made once per database and kept in it, so several daemons (and the admin
 * subcommands) on one database sign and verify alike. It never leaves the database.
 */
async function loadSigningKey(db: Db): Promise<Uint8Array> {
  await db
    .insertInto('settings')
    .values({ key: SIGNING_KEY, value: randomBytes(32).toString('base64') })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const row = await db.selectFrom('settings').select('value').where('key', '=', SIGNING_KEY).executeTakeFirstOrThrow();
  return new Uint8Array(Buffer.from(row.value, 'base64'));
}

const tokenRows = (db: Pick<Db, 'selectFrom'>) =>
  db
    .selectFrom('tokens')
    .innerJoin('users', 'users.id', 'tokens.user_id')
    .select([
      'tokens.id',
      'tokens.scope',
      'tokens.source_id',
      'tokens.expires_at',
      'tokens.revoked_at',
      'users.id as user_id',
      'users.email',
      'users.name',
    ]);

/**
 * PostgreSQL's `tokenRows` for an array of ids, kept prepared (db/gathered.ts, `kept`; decisions
 * §20.34): the same columns, each cast to the type it has, so that another daemon's migration cannot
 * change the result's type.
 */
const KEPT_TOKEN_ROWS = `select t.id::text as id, t.scope::text as scope, t.source_id::text as source_id,
       t.expires_at::text as expires_at, t.revoked_at::text as revoked_at,
       u.id::text as user_id, u.email::text as email, u.name::text as name
from tokens t inner join users u on u.id = t.user_id
where t.id = any($1::text[])`;

/**
 * Every authenticated request runs this, compiled once per token service. Given how the database
 * stores ids (the app's), the tokens of requests that arrive together are read in one query
 * (db/gathered.ts, §16.6); without (one-off users: admin commands), one query a lookup.
 */
const tokenLookup = (db: Db, dialect?: Gathering) =>
  dialect
    ? gatheredLookup(db, dialect.stored, {
        column: 'id',
        build: (db, ids) => tokenRows(db).where('tokens.id', 'in', ids),
        keyOf: (row) => row.id,
        kept: dialect.backend === 'postgres' ? KEPT_TOKEN_ROWS : undefined,
      })
    : preparedLookup(db, (db, id) => tokenRows(db).where('tokens.id', '=', id));

/** Bounded: enough for every token in use on a laptop or a CI box. */
const VERIFIED_CACHE_SIZE = 1000;

/** `dialect`: the app's, to gather token lookups (see tokenLookup). */
export function createTokenService(db: Db, clock: Clock, dialect?: Gathering): TokenService {
  const tokenById = tokenLookup(db, dialect);
  let key: Promise<Uint8Array> | undefined;
  // A load that failed (the database down for a moment) is not kept: the next request loads again.
  // Kept, it refused every token until a restart (issue 24).
  const signingKey = () =>
    (key ??= loadSigningKey(db).catch((error: unknown) => {
      key = undefined;
      throw error;
    }));
  // A signature check gives the same answer for the same token string every time (the key never
  // changes), and it is the costliest step of a request; expiry, revocation and the user are
  // still checked on every request below.
  const verified = new Map<string, JWTPayload>();

  async function verifiedClaims(token: string): Promise<{ readonly claims: JWTPayload } | Refusal> {
    const known = verified.get(token);
    if (known) return { claims: known };
    // Outside the try: a database that cannot give the key says nothing about the token (a 503).
    const secret = await signingKey();
    try {
      // The algorithm is pinned: a token with `alg: none` or any other algorithm fails here.
      const { payload } = await jwtVerify(token, secret, { algorithms: ['HS256'], currentDate: clock.now() });
      if (verified.size >= VERIFIED_CACHE_SIZE) verified.clear();
      verified.set(token, payload);
      return { claims: payload };
    } catch (error) {
      return failureOf(error);
    }
  }

  return {
    async issue({ userId, scope, sourceId = null, expiresAt = null }) {
      const id = newId();
      await db
        .insertInto('tokens')
        .values({
          id,
          user_id: userId,
          scope,
          source_id: sourceId,
          created_at: isoNow(clock),
          expires_at: expiresAt?.toISOString() ?? null,
          revoked_at: null,
        })
        .execute();
      const claims = {
        scope,
        ...(sourceId ? { src: sourceId } : {}),
        sub: userId,
        jti: id,
        iat: Math.floor(clock.now().getTime() / 1000),
        ...(expiresAt ? { exp: Math.floor(expiresAt.getTime() / 1000) } : {}),
      };
      return { id, token: signHs256(claims, await signingKey()), expiresAt: expiresAt?.toISOString() ?? null };
    },

    async verify(token) {
      const checked = await verifiedClaims(token);
      if ('failure' in checked) return checked;
      const { claims } = checked;
      if (typeof claims.jti !== 'string' || typeof claims.sub !== 'string') return fail('malformed');
      if (claims.exp !== undefined && claims.exp * 1000 <= clock.now().getTime())
        return expired(claims.jti, new Date(claims.exp * 1000));
      const row = await tokenById(claims.jti);
      const scopes = (loadedSchemas() ?? (await schemas())).Scope;
      if (!row || row.user_id !== claims.sub || !scopes.safeParse(row.scope).success)
        return fail('unknown_token', claims.jti);
      if (row.revoked_at !== null) return fail('revoked', row.id);
      if (row.expires_at !== null && row.expires_at <= isoNow(clock)) return expired(row.id, row.expires_at);
      return {
        principal: {
          user: { id: row.user_id, email: row.email, name: row.name },
          tokenId: row.id,
          scope: row.scope,
          sourceId: row.source_id,
        },
      };
    },
  };
}

export async function listTokens(db: Db, email?: string) {
  let query = db
    .selectFrom('tokens')
    .innerJoin('users', 'users.id', 'tokens.user_id')
    .select([
      'tokens.id',
      'users.email',
      'tokens.scope',
      'tokens.source_id',
      'tokens.created_at',
      'tokens.expires_at',
      'tokens.revoked_at',
    ])
    .orderBy('tokens.created_at', 'desc')
    .orderBy('tokens.id', 'desc');
  if (email) query = query.where('users.email', '=', email.trim().toLowerCase());
  return query.execute();
}

/** Returns false when no token has that id. Revoking twice keeps the first time. */
export async function revokeToken(db: Db, clock: Clock, tokenId: string): Promise<boolean> {
  const found = await db.selectFrom('tokens').select('id').where('id', '=', tokenId).executeTakeFirst();
  if (!found) return false;
  await db
    .updateTable('tokens')
    .set({ revoked_at: isoNow(clock) })
    .where('id', '=', tokenId)
    .where('revoked_at', 'is', null)
    .execute();
  return true;
}
