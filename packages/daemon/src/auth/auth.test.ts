import { randomBytes } from 'node:crypto';
import { contract, createClient, type Endpoint } from '@tapline/shared';
import { SignJWT } from 'jose';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  authenticatedEndpoints,
  buildWorld,
  passwordUser,
  send,
  VALID_REQUESTS,
  createSource,
  expectError,
  manualClock,
  MISSING_ID,
  raw,
  rawJson,
  composeBody,
  type Harness,
  startHarness,
  testBackend,
} from '@tapline/testkit/daemon';
import { LOGIN_TOKEN_LIFETIME_MS } from './routes.js';
import { revokeToken } from './tokens.js';

const pathWithMissingIds = (e: Endpoint) => e.path.replace(/:([A-Za-z]+)/g, MISSING_ID);
const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('authentication', () => {
  let h: Harness;
  const clock = manualClock('2026-03-01T12:00:00.000Z');
  beforeEach(async () => {
    clock.set('2026-03-01T12:00:00.000Z');
    h = await startHarness({ clock, config: { allowPrivateWebhooks: true } });
  });
  afterEach(() => h.close());

  async function signingKey(): Promise<Uint8Array> {
    const row = await h.deps.db
      .selectFrom('settings')
      .select('value')
      .where('key', '=', 'jwt_signing_key')
      .executeTakeFirstOrThrow();
    return new Uint8Array(Buffer.from(row.value, 'base64'));
  }

  async function meOf(token: string) {
    return rawJson(h, 'GET', '/auth/me', token);
  }

  it('answers 400 "Authentication token missing" on every authenticated endpoint without a token', async () => {
    expect(authenticatedEndpoints().length).toBeGreaterThanOrEqual(15);
    for (const [name, e] of authenticatedEndpoints()) {
      for (const headers of [
        {},
        { authorization: 'Bearer ' },
        { authorization: 'Bearer    ' },
        { authorization: '' },
      ] as Record<string, string>[]) {
        const answer = await raw(h, e.method, pathWithMissingIds(e), { headers });
        expect(answer.status, `${name} ${JSON.stringify(headers)}`).toBe(400);
        expect(answer.json).toEqual({ statusCode: 400, error: 'Authentication token missing', code: 'token_missing' });
      }
    }
  });

  it('checks the token before the body: no token and a bad body is still 400 token missing', async () => {
    const answer = await raw(h, 'POST', '/traffic-source', {
      body: 'not json',
      headers: { 'content-type': 'text/plain' },
    });
    expect(answer.json).toEqual({ statusCode: 400, error: 'Authentication token missing', code: 'token_missing' });
  });

  it('answers 401 "Invalid token" on every authenticated endpoint for a malformed token', async () => {
    for (const [name, e] of authenticatedEndpoints()) {
      const answer = await raw(h, e.method, pathWithMissingIds(e), { token: 'not-a-jwt' });
      expect(answer.status, name).toBe(401);
      expect(answer.json).toEqual({ statusCode: 401, error: 'Invalid token', code: 'token_invalid' });
    }
  });

  it('accepts a valid token, with any case of "Bearer"', async () => {
    const user = await h.user();
    for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
      const answer = await raw(h, 'GET', '/auth/me', { headers: { authorization: `${scheme} ${user.token}` } });
      expect(answer.status, scheme).toBe(200);
    }
  });

  describe('tokens that must fail verification (401)', () => {
    async function expect401(token: string) {
      const answer = await meOf(token);
      expect(answer.status).toBe(401);
      expect(answer.json).toEqual({ statusCode: 401, error: 'Invalid token', code: 'token_invalid' });
    }

    it('a token signed with another key', async () => {
      const user = await h.user();
      const me = await user.client.call(contract.me);
      const forged = await new SignJWT({ scope: 'full' })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(user.id)
        .setJti(me.tokenId)
        .setIssuedAt()
        .sign(randomBytes(32));
      await expect401(forged);
    });

    it('a token with alg none', async () => {
      const user = await h.user();
      const me = await user.client.call(contract.me);
      const claims = { sub: user.id, jti: me.tokenId, scope: 'full', iat: Math.floor(clock.now().getTime() / 1000) };
      await expect401(`${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(claims)}.`);
      await expect401(`${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(claims)}`);
    });

    it('a token signed with the right key but another algorithm (HS512, HS384)', async () => {
      const user = await h.user();
      const me = await user.client.call(contract.me);
      const key = await signingKey();
      for (const alg of ['HS512', 'HS384']) {
        const token = await new SignJWT({ scope: 'full' })
          .setProtectedHeader({ alg })
          .setSubject(user.id)
          .setJti(me.tokenId)
          .setIssuedAt()
          .sign(key);
        await expect401(token);
      }
      // The same claims under HS256 and that key do verify, so the algorithm alone made the difference.
      const good = await new SignJWT({ scope: 'full' })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(user.id)
        .setJti(me.tokenId)
        .setIssuedAt()
        .sign(key);
      expect((await meOf(good)).status).toBe(200);
    });

    it('a token whose payload was changed after signing', async () => {
      const user = await h.user();
      const other = await h.user();
      const [header, , signature] = user.token.split('.');
      const me = await user.client.call(contract.me);
      await expect401(`${header}.${b64url({ sub: other.id, jti: me.tokenId, scope: 'full' })}.${signature}`);
    });

    it('a well-signed token whose id was never issued, or whose subject is not its user', async () => {
      const user = await h.user();
      const other = await h.user();
      const key = await signingKey();
      const unknownJti = await new SignJWT({ scope: 'full' })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(user.id)
        .setJti(MISSING_ID)
        .sign(key);
      await expect401(unknownJti);
      const me = await user.client.call(contract.me);
      const wrongSub = await new SignJWT({ scope: 'full' })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(other.id)
        .setJti(me.tokenId)
        .sign(key);
      await expect401(wrongSub);
    });

    it('an expired token, including one that expires while the daemon runs: code token_expired, saying when', async () => {
      const user = await h.user();
      const expired = await h.token(user.id, { expiresAt: new Date(clock.now().getTime() - 1000) });
      expect(
        (await expectError(expired.call(contract.me), 401, 'Token expired at 2026-03-01T11:59:59.000Z')).body.code,
      ).toBe('token_expired');
      const hourly = await h.token(user.id, { expiresAt: new Date(clock.now().getTime() + 3_600_000) });
      expect((await hourly.call(contract.me)).id).toBe(user.id);
      clock.advance(3_600_000 + 1000);
      expect(
        (await expectError(hourly.call(contract.me), 401, 'Token expired at 2026-03-01T13:00:00.000Z')).body.code,
      ).toBe('token_expired');
      // A token without expiry lives on.
      expect((await user.client.call(contract.me)).id).toBe(user.id);
    });

    it('a revoked token, while the user’s other tokens keep working', async () => {
      const user = await h.user();
      const second = await h.token(user.id);
      const me = await user.client.call(contract.me);
      expect(await revokeToken(h.deps.db, clock, me.tokenId)).toBe(true);
      await expectError(user.client.call(contract.me), 401, 'Invalid token');
      expect((await second.call(contract.me)).id).toBe(user.id);
    });

    it('a token of a user who no longer exists', async () => {
      const user = await h.user();
      await h.deps.db.deleteFrom('users').where('id', '=', user.id).execute();
      await expectError(user.client.call(contract.me), 401, 'Invalid token');
    });
  });

  describe('scopes (read may only GET; ingest may compose, write core logs and list sources; full may do everything)', () => {
    const allowed: Record<'read' | 'ingest' | 'full', (name: string, e: Endpoint) => boolean> = {
      full: () => true,
      // The contract check is a POST only because a spec is too large for a query; it reads only.
      read: (name, e) => e.method === 'GET' || name === 'checkApiContract',
      ingest: (name, e) =>
        (e.method === 'POST' && (e.path.startsWith('/http-traffic-record/') || e.path.startsWith('/core-log/'))) ||
        ['ingestLog', 'otlpTraces', 'listTrafficSources', 'me'].includes(name),
    };

    for (const scope of ['read', 'ingest', 'full'] as const) {
      it(`${scope}: every endpoint answers as its scope allows, 403 Forbidden otherwise`, async () => {
        const owner = await h.user();
        for (const [name, e] of authenticatedEndpoints()) {
          const build = VALID_REQUESTS[name];
          expect(build, `no valid request for ${name}`).toBeDefined();
          if (!build) continue;
          const world = await buildWorld(owner.client, { webhook: 'local' });
          const { token } = await h.deps.tokens.issue({ userId: owner.id, scope });
          const answer = await send(h, token, e, build(world));
          if (allowed[scope](name, e)) {
            expect(answer.status, `${scope} ${name}: ${answer.text}`).toBe(e.status);
          } else {
            expect(answer.status, `${scope} ${name}: ${answer.text}`).toBe(403);
            expect(answer.json).toEqual({ statusCode: 403, error: 'Forbidden', code: 'forbidden' });
          }
        }
      });
    }

    it('checks existence before scope: a read token deleting a missing webhook gets 404', async () => {
      const owner = await h.user();
      const read = await h.token(owner.id, { scope: 'read' });
      await expectError(
        read.call(contract.deleteWebhook, { params: { webhookId: MISSING_ID } }),
        404,
        'Webhook not found',
      );
      await expectError(
        read.call(contract.composeRecord, { params: { trafficSourceId: MISSING_ID }, body: composeBody(MISSING_ID) }),
        404,
        'Traffic Source not found',
      );
    });
  });

  describe('tokens restricted to one source', () => {
    it('list only that source and get 403 on the user’s other sources', async () => {
      const owner = await h.user();
      const allowedWorld = await buildWorld(owner.client, { webhook: 'local' });
      const otherWorld = await buildWorld(owner.client, { webhook: 'local' });
      const { token: restrictedToken } = await h.deps.tokens.issue({
        userId: owner.id,
        scope: 'full',
        sourceId: allowedWorld.sourceId,
      });
      const restricted = createClient({ baseUrl: h.url, token: restrictedToken });

      const me = await restricted.call(contract.me);
      expect(me.sourceId).toBe(allowedWorld.sourceId);
      const sources = await restricted.call(contract.listTrafficSources);
      expect(sources.data.map((s) => s.id)).toEqual([allowedWorld.sourceId]);
      expect(sources.meta.total).toBe(1);

      await expectError(
        restricted.call(contract.createTrafficSource, { body: { name: 'more', trafficDomain: 'more.example.com' } }),
        403,
        'Forbidden',
      );
      for (const [name, e] of authenticatedEndpoints()) {
        if (!e.path.includes(':')) continue;
        const build = VALID_REQUESTS[name];
        if (!build) continue;
        const denied = await send(h, restrictedToken, e, build(otherWorld));
        expect(denied.status, `${name} on another source: ${denied.text}`).toBe(403);
      }
      for (const [name, e] of authenticatedEndpoints()) {
        if (!e.path.includes(':') || e.method === 'DELETE') continue;
        const build = VALID_REQUESTS[name];
        if (!build) continue;
        const ok = await send(h, restrictedToken, e, build(allowedWorld));
        expect(ok.status, `${name} on its own source: ${ok.text}`).toBe(e.status);
      }
      // 404 before 403: a source that does not exist is not found, whatever the restriction.
      await expectError(
        restricted.call(contract.listTraffic, { params: { trafficSourceId: MISSING_ID } }),
        404,
        'Traffic Source not found',
      );
    });
  });

  describe('DELETE /auth/token', () => {
    it("revokes the caller's own token, and only it: later requests with it get 401", async () => {
      const user = await h.user();
      const other = await h.token(user.id);
      const answer = await rawJson(h, 'DELETE', '/auth/token', user.token);
      expect([answer.status, answer.text]).toEqual([204, '']);
      expect((await meOf(user.token)).status).toBe(401);
      expect((await rawJson(h, 'DELETE', '/auth/token', user.token)).json).toEqual({
        statusCode: 401,
        error: 'Invalid token',
        code: 'token_invalid',
      });
      expect(await other.call(contract.me)).toMatchObject({ id: user.id });
    });

    it('is not rate limited as log-ins are', async () => {
      const user = await h.user();
      for (let i = 0; i < 31; i++) {
        const { token } = await h.deps.tokens.issue({ userId: user.id, scope: 'full' });
        expect((await rawJson(h, 'DELETE', '/auth/token', token)).status).toBe(204);
      }
    });
  });

  describe('POST /auth/token', () => {
    it('exchanges email and password for a token that lasts 30 days', async () => {
      const user = await passwordUser(h);
      const answer = await rawJson(h, 'POST', '/auth/token', undefined, {
        email: 'password-user@example.com',
        password: 'correct horse',
      });
      expect(answer.status).toBe(201);
      const body = answer.json as { token: string; expiresAt: string };
      expect(Object.keys(body).sort()).toEqual(['expiresAt', 'token']);
      expect(body.expiresAt).toBe(new Date(clock.now().getTime() + LOGIN_TOKEN_LIFETIME_MS).toISOString());
      const client = createClient({ baseUrl: h.url, token: body.token });
      expect(await client.call(contract.me)).toMatchObject({
        id: user.id,
        email: 'password-user@example.com',
        scope: 'full',
        sourceId: null,
      });
    });

    it('matches the email case-insensitively and ignores surrounding space', async () => {
      await passwordUser(h);
      const answer = await rawJson(h, 'POST', '/auth/token', undefined, {
        email: '  Password-User@EXAMPLE.com ',
        password: 'correct horse',
      });
      expect(answer.status).toBe(201);
    });

    it('gives the same 401 for an unknown email, a wrong password and a user without a password', async () => {
      await passwordUser(h);
      const passwordless = await h.user();
      const attempts = [
        { email: 'nobody@example.com', password: 'correct horse' },
        { email: 'password-user@example.com', password: 'Correct horse' },
        { email: 'password-user@example.com', password: 'correct horse ' },
        { email: passwordless.email, password: 'anything' },
      ];
      for (const attempt of attempts) {
        const answer = await rawJson(h, 'POST', '/auth/token', undefined, attempt);
        expect(answer.status, JSON.stringify(attempt)).toBe(401);
        expect(answer.json).toEqual({ statusCode: 401, error: 'Invalid email or password', code: 'login_failed' });
      }
    });

    it('answers 400 to a missing email or password and 415 to a form post', async () => {
      for (const body of [
        {},
        { email: 'a@example.com' },
        { password: 'x' },
        { email: '', password: 'x' },
        { email: 'a@example.com', password: '' },
        { email: 1, password: 2 },
      ]) {
        const answer = await rawJson(h, 'POST', '/auth/token', undefined, body);
        expect(answer.status, JSON.stringify(body)).toBe(400);
      }
      const form = await raw(h, 'POST', '/auth/token', {
        body: 'email=a&password=b',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(form.status).toBe(415);
    });

    it('needs no token, and ignores a bad one', async () => {
      await passwordUser(h);
      const answer = await raw(h, 'POST', '/auth/token', {
        token: 'garbage',
        body: JSON.stringify({ email: 'password-user@example.com', password: 'correct horse' }),
        headers: { 'content-type': 'application/json' },
      });
      expect(answer.status).toBe(201);
    });
  });

  describe('GET /auth/me', () => {
    it("returns the token's user, token id, scope and source restriction", async () => {
      const user = await h.user('me@example.com');
      const source = await createSource(user.client);
      const me = await raw(h, 'GET', '/auth/me', { token: user.token });
      expect(me.status).toBe(200);
      expect(me.json).toEqual({
        id: user.id,
        email: 'me@example.com',
        name: 'me',
        // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- vitest's asymmetric matchers are typed `any`
        tokenId: expect.any(String),
        scope: 'full',
        sourceId: null,
      });
      const ingest = await h.token(user.id, { scope: 'ingest', sourceId: source.id });
      expect(await ingest.call(contract.me)).toMatchObject({ id: user.id, scope: 'ingest', sourceId: source.id });
    });
  });

  describe('open endpoints', () => {
    it('GET /healthz and GET /openapi.json need no token', async () => {
      const health = await raw(h, 'GET', '/healthz');
      expect(health.status).toBe(200);
      expect(health.json).toMatchObject({
        status: 'ok',
        version: '0.0.0-test',
        database: testBackend(),
        storage: { retentionMs: 30 * 86_400_000 },
      });
      const openapi = await raw(h, 'GET', '/openapi.json');
      expect(openapi.status).toBe(200);
      expect(openapi.json).toMatchObject({ openapi: '3.1.0' });
    });
  });
});
