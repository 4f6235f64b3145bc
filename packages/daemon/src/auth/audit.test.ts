import { randomBytes } from 'node:crypto';
import { contract } from '@tapline/shared';
import { SignJWT } from 'jose';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  passwordUser,
  createSource,
  manualClock,
  MISSING_ID,
  raw,
  type Harness,
  startHarness,
  type TestUser,
} from '@tapline/testkit/daemon';
import { revokeToken } from './tokens.js';

interface Line {
  level: number;
  msg: string;
  event: string;
  status: number;
  reason: string;
  tokenId: string | null;
  remoteAddress: string;
  method: string;
  path: string;
}

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('the audit line for each refused authentication or authorization', () => {
  const clock = manualClock('2026-03-01T12:00:00.000Z');
  let h: Harness;
  let written: string[];
  let alice: TestUser;
  let aliceTokenId: string;

  beforeEach(async () => {
    written = [];
    // The daemon's own logger at its most verbose, writing into this array.
    const logger = pino({ level: 'trace' }, { write: (line: string) => void written.push(line) });
    h = await startHarness({ clock, logger, config: { allowPrivateWebhooks: true } });
    alice = await h.user();
    aliceTokenId = (await alice.client.call(contract.me)).tokenId;
    written.length = 0;
  });
  afterEach(() => h.close());

  const audit = () =>
    written
      .map((l) => JSON.parse(l) as Line)
      .filter((l) => l.event === 'authentication_failed' || l.event === 'access_denied');

  /** One request, one line: returns it after checking the status the client got. */
  async function refused(
    status: number,
    method: string,
    path: string,
    options: Parameters<typeof raw>[3] = {},
  ): Promise<Line> {
    written.length = 0;
    expect((await raw(h, method, path, options)).status).toBe(status);
    const lines = audit();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 40,
      status,
      // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- vitest's asymmetric matchers are typed `any`
      remoteAddress: expect.stringMatching(/127\.0\.0\.1$/),
      method,
      path: path.split('?')[0],
    });
    return lines[0]!;
  }

  async function signingKey(): Promise<Uint8Array> {
    const row = await h.deps.db
      .selectFrom('settings')
      .select('value')
      .where('key', '=', 'jwt_signing_key')
      .executeTakeFirstOrThrow();
    return new Uint8Array(Buffer.from(row.value, 'base64'));
  }

  it('names why a token was refused, and its id only once its signature verified', async () => {
    const sign = (key: Uint8Array, alg = 'HS256', jti = aliceTokenId) =>
      new SignJWT({ scope: 'full' })
        .setProtectedHeader({ alg })
        .setSubject(alice.id)
        .setJti(jti)
        .setIssuedAt()
        .sign(key);
    const expired = await h.deps.tokens.issue({
      userId: alice.id,
      scope: 'full',
      expiresAt: new Date(clock.now().getTime() - 1000),
    });
    const revoked = await h.deps.tokens.issue({ userId: alice.id, scope: 'full' });
    await revokeToken(h.deps.db, clock, revoked.id);
    const cases: [Record<string, string>, string, string | null][] = [
      [{}, 'missing', null],
      [{ authorization: 'Basic YWxpY2U6c2VjcmV0' }, 'malformed', null],
      [{ authorization: 'Bearer not-a-jwt' }, 'malformed', null],
      [{ authorization: `Bearer ${await sign(randomBytes(32))}` }, 'bad_signature', null],
      [
        {
          authorization: `Bearer ${b64url({ alg: 'none', typ: 'JWT' })}.${b64url({ sub: alice.id, jti: aliceTokenId })}.`,
        },
        'bad_algorithm',
        null,
      ],
      [{ authorization: `Bearer ${await sign(await signingKey(), 'HS512')}` }, 'bad_algorithm', null],
      [{ authorization: `Bearer ${expired.token}` }, 'expired', expired.id],
      [{ authorization: `Bearer ${revoked.token}` }, 'revoked', revoked.id],
      [{ authorization: `Bearer ${await sign(await signingKey(), 'HS256', MISSING_ID)}` }, 'unknown_token', MISSING_ID],
    ];
    const tokens = cases.map(([headers]) => headers.authorization?.replace(/^\S+ /, '')).filter(Boolean) as string[];
    for (const [headers, reason, tokenId] of cases) {
      const line = await refused(
        reason === 'missing' || headers.authorization?.startsWith('Basic') ? 400 : 401,
        'GET',
        '/auth/me',
        { headers },
      );
      expect(line, reason).toMatchObject({
        event: 'authentication_failed',
        reason,
        tokenId,
        msg: 'authentication failed',
      });
      for (const token of tokens) expect(JSON.stringify(line)).not.toContain(token);
    }
  });

  it('names scope, source restriction and ownership on a 403, with the token id', async () => {
    const read = await h.deps.tokens.issue({ userId: alice.id, scope: 'read' });
    const mine = await createSource(alice.client);
    const other = await createSource(alice.client);
    const restricted = await h.deps.tokens.issue({ userId: alice.id, scope: 'full', sourceId: mine.id });
    const bob = await h.user();

    expect(
      await refused(403, 'POST', '/traffic-source', {
        token: read.token,
        body: JSON.stringify({ name: 'x', trafficDomain: 'x.example' }),
        headers: { 'content-type': 'application/json' },
      }),
    ).toMatchObject({
      event: 'access_denied',
      reason: 'scope_denied',
      tokenId: read.id,
    });
    expect(await refused(403, 'GET', `/webhooks/${other.id}`, { token: restricted.token })).toMatchObject({
      reason: 'source_denied',
      tokenId: restricted.id,
    });
    const bobId = (await bob.client.call(contract.me)).tokenId;
    expect(await refused(403, 'GET', `/http-traffic/${mine.id}?limit=5`, { token: bob.token })).toMatchObject({
      reason: 'not_owner',
      tokenId: bobId,
    });
  });

  it('logs a failed log-in without the email or password given, and nothing for requests that pass', async () => {
    await passwordUser(h, 'carol@example.com', 'correct horse');
    const body = JSON.stringify({ email: 'carol@example.com', password: 'wrong horse' });
    const line = await refused(401, 'POST', '/auth/token', { body, headers: { 'content-type': 'application/json' } });
    expect(line).toMatchObject({ reason: 'bad_credentials', tokenId: null });
    expect(written.join('')).not.toMatch(/carol|horse/);

    written.length = 0;
    await alice.client.call(contract.me);
    await alice.client.call(contract.listTrafficSources, {});
    expect(audit()).toEqual([]);
  });
});
