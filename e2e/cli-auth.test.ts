import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, cli, type SpawnedDaemon, startDaemon, tempHome } from './support/binaries.js';

/**
 * Logins, logouts and expired tokens with the built `tapline` and `taplined`, as a user meets
 * them: every token a login leaves behind is either revoked or named with the command that
 * revokes it (issue 24, problems 13 and 18).
 */

const EMAIL = 'ana@example.com';
const PASSWORD = 'correct horse battery';
const SLOW = { timeout: 120_000 };

const claims = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { jti: string; exp?: number };
const accepted = async (url: string, token: string) =>
  (await fetch(`${url}/auth/me`, { headers: { authorization: `Bearer ${token}` } })).status;
/** `2026-11-20 10:00 UTC`: how the CLI names a moment to a person. */
const utcMinute = (seconds: number) => `${new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A port nothing listens on: a daemon that has gone away. */
async function deadUrl(): Promise<string> {
  const server = createServer();
  const url = await listen(server);
  await new Promise((resolve) => server.close(resolve));
  return url;
}

describe('login and logout leave no token valid and unnamed', SLOW, () => {
  const home = tempHome();
  const other = tempHome();
  let daemon: SpawnedDaemon;
  let second: SpawnedDaemon;
  const stored = () => (JSON.parse(readFileSync(join(home.path, 'credentials'), 'utf8')) as { token: string }).token;
  const login = (url: string) =>
    cli(['--url', url, 'login', '--email', EMAIL, '--password-stdin'], { home: home.path, input: PASSWORD });

  beforeAll(async () => {
    daemon = await startDaemon(home.path);
    second = await startDaemon(other.path);
    await admin(home.path, ['user', 'add', EMAIL, '--password-stdin'], PASSWORD);
  });
  afterAll(async () => {
    await daemon.stop();
    await second.stop();
    home.remove();
    other.remove();
  });

  it('a second login revokes the token of the login it replaces', async () => {
    expect((await login(daemon.url)).exitCode).toBe(0);
    const first = stored();
    const again = await login(daemon.url);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toBe(
      `token stored in ${join(home.path, 'credentials')}\nthe token of the previous login was revoked at ${daemon.url}`,
    );
    expect(await accepted(daemon.url, first)).toBe(401);
    expect(await accepted(daemon.url, stored())).toBe(200);
  });

  it('logout with --url naming another daemon revokes the token at the daemon that issued it', async () => {
    expect((await login(daemon.url)).exitCode).toBe(0);
    const token = stored();
    const out = await cli(['--url', second.url, 'logout'], { home: home.path });
    expect(out.exitCode, out.stderr).toBe(0);
    expect(out.stdout).toBe(`logged out of ${daemon.url} as ${EMAIL}; removed ${join(home.path, 'credentials')}`);
    expect(out.stderr).toBe(
      `the token was revoked at the daemon\nlater commands use the daemon's token in ${join(home.path, 'token')}`,
    );
    expect(await accepted(daemon.url, token)).toBe(401);
  });

  it('a logout that cannot reach the daemon names the token and the command that revokes it', async () => {
    expect((await login(daemon.url)).exitCode).toBe(0);
    const token = stored();
    const { jti } = claims(token);
    // The login's daemon is stopped: the stored URL now answers nothing.
    const gone = await deadUrl();
    const credentials = JSON.parse(readFileSync(join(home.path, 'credentials'), 'utf8')) as Record<string, string>;
    writeFileSync(join(home.path, 'credentials'), JSON.stringify({ ...credentials, url: gone }));
    const out = await cli(['logout'], { home: home.path });
    expect(out.exitCode, out.stderr).toBe(0);
    expect(out.stderr).toBe(
      `the token could not be revoked (cannot reach the Tapline daemon at ${gone} (ECONNREFUSED)); it stays valid until it expires\n` +
        `  revoke it on the daemon's machine: taplined token revoke ${jti}\n` +
        `later commands use the daemon's token in ${join(home.path, 'token')}`,
    );
    expect(await accepted(daemon.url, token)).toBe(200);
    await admin(home.path, ['token', 'revoke', jti]);
    expect(await accepted(daemon.url, token)).toBe(401);
  });

  it('a login that cannot revoke the token it replaces names it', async () => {
    expect((await login(daemon.url)).exitCode).toBe(0);
    const { jti } = claims(stored());
    const credentials = JSON.parse(readFileSync(join(home.path, 'credentials'), 'utf8')) as Record<string, string>;
    const gone = await deadUrl();
    writeFileSync(join(home.path, 'credentials'), JSON.stringify({ ...credentials, url: gone }));
    const again = await login(daemon.url);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toBe(
      `token stored in ${join(home.path, 'credentials')}\n` +
        `the token of the previous login could not be revoked (cannot reach the Tapline daemon at ${gone} (ECONNREFUSED)); it stays valid until it expires\n` +
        `  revoke it on the daemon's machine: taplined token revoke ${jti}`,
    );
  });
});

describe('an expired token is named as expired, with when and how to get a new one', SLOW, () => {
  const home = tempHome();
  let daemon: SpawnedDaemon;
  let stub: Server;
  let stubUrl = '';
  /** What the stand-in daemon answers to every request: a 401 of the given code and message. */
  let refusal = { error: 'Invalid token', code: 'token_invalid' };
  const jwt = (payload: Record<string, unknown>) =>
    `${Buffer.from('{"alg":"HS256","typ":"JWT"}').toString('base64url')}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.c2ln`;

  beforeAll(async () => {
    daemon = await startDaemon(home.path);
    stub = createServer((_req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ statusCode: 401, ...refusal }));
    });
    stubUrl = await listen(stub);
  });
  afterAll(async () => {
    stub.close();
    await daemon.stop();
    home.remove();
  });

  it('a token that expired at the real daemon: exit 4 and the time it expired', async () => {
    const token = await admin(home.path, ['token', 'create', 'local@localhost', '--expires', '1s']);
    const { exp } = claims(token);
    await expect.poll(() => accepted(daemon.url, token), { timeout: 10_000, interval: 200 }).toBe(401);
    for (const args of [['sources', 'list'], ['auth', 'status'], ['status']]) {
      const result = await cli(['--url', daemon.url, '--token', token, ...args], { home: home.path });
      expect(result.exitCode, args.join(' ')).toBe(4);
      expect(result.stderr, args.join(' ')).toBe(
        `tapline: the token from --token expired at ${utcMinute(exp ?? 0)}\n  get a new one with \`tapline login --email <you>\`, or \`taplined token create <email>\` on the daemon's machine`,
      );
    }
  });

  it('a daemon that answers `token_expired` (and a login stored by `tapline login`)', async () => {
    refusal = { error: 'Token expired at 2026-11-20T10:00:00.000Z', code: 'token_expired' };
    const token = jwt({ sub: 'u', jti: 'j', exp: Date.parse('2026-11-20T10:00:00.000Z') / 1000 });
    writeFileSync(join(home.path, 'credentials'), JSON.stringify({ token, url: stubUrl, email: EMAIL }));
    try {
      const result = await cli(['sources', 'list'], { home: home.path });
      expect(result.exitCode).toBe(4);
      expect(result.stderr).toBe(
        `tapline: your login expired at 2026-11-20 10:00 UTC; log in again with \`tapline login --email ${EMAIL}\``,
      );
    } finally {
      rmSync(join(home.path, 'credentials'));
    }
  });

  it("an older daemon that says only `Invalid token`: the token's own expiry tells", async () => {
    refusal = { error: 'Invalid token', code: 'token_invalid' };
    const expired = jwt({ sub: 'u', jti: 'j', exp: Date.parse('2026-11-20T10:00:00.000Z') / 1000 });
    const result = await cli(['--url', stubUrl, 'sources', 'list'], {
      home: home.path,
      env: { TAPLINE_TOKEN: expired },
    });
    expect(result.exitCode).toBe(4);
    expect(result.stderr).toBe(
      "tapline: the token from TAPLINE_TOKEN expired at 2026-11-20 10:00 UTC\n  get a new one with `tapline login --email <you>`, or `taplined token create <email>` on the daemon's machine",
    );
    const current = jwt({ sub: 'u', jti: 'j', exp: Math.floor(Date.now() / 1000) + 3600 });
    const refused = await cli(['--url', stubUrl, '--token', current, 'sources', 'list'], { home: home.path });
    expect(refused.exitCode).toBe(4);
    expect(refused.stderr).toMatch(/^tapline: the daemon refused the token \(Invalid token\)\n/);
  });
});
