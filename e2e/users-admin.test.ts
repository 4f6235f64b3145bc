import { execFileSync } from 'node:child_process';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { ApiError, contract, createClient } from '@tapline/shared';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, cleanEnv, cli, type SpawnedDaemon, startDaemon, TAPLINED, tempHome } from './support/binaries.js';
import { until } from '@tapline/testkit';

/**
 * Administering users (issue 24, problems 10 and 12): `taplined user list | passwd | remove`,
 * `POST /auth/password` for a user's own password, and `token list` naming the token the first
 * start wrote.
 */

const jti = (token: string): string =>
  (JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as { jti: string }).jti;

describe('taplined user list, passwd and remove (built taplined)', () => {
  const dir = tempHome('tapline-users-');
  let daemon: SpawnedDaemon;

  /** Runs taplined on the daemon's home to completion; never throws on a non-zero exit. */
  async function run(args: readonly string[], input?: string) {
    const result = await execa('node', [TAPLINED, ...args, '--home', dir.path], {
      env: cleanEnv(),
      extendEnv: false,
      reject: false,
      stripFinalNewline: false,
      timeout: 20_000,
      ...(input !== undefined ? { input } : { stdin: 'ignore' as const }),
    });
    return { exitCode: result.exitCode, stdout: String(result.stdout), stderr: String(result.stderr) };
  }
  const client = (token?: string) => createClient({ baseUrl: daemon.url, ...(token ? { token } : {}) });
  const logIn = (email: string, password: string) => client().call(contract.createToken, { body: { email, password } });
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: unknown) => (error instanceof ApiError ? { status: error.status, code: error.code } : error),
    );
  const userRow = async (email: string) =>
    (await admin(dir.path, ['user', 'list'])).split('\n').find((line) => line.split(/\s+/)[1] === email);

  beforeAll(async () => {
    daemon = await startDaemon(dir.path);
  });
  afterAll(async () => {
    await daemon?.stop();
    dir.remove();
  });

  it('names the first start’s token in `token list`: where it was written, on which machine', async () => {
    await admin(dir.path, ['user', 'add', 'noted@example.com']);
    const other = await admin(dir.path, ['token', 'create', 'noted@example.com']);
    const listed = (await admin(dir.path, ['token', 'list'])).split('\n');
    expect(listed[0]).toMatch(/^ID\s+EMAIL\s+SCOPE\s+SOURCE\s+CREATED\s+EXPIRES\s+REVOKED\s+NOTE$/);
    const first = listed.find((line) => line.startsWith(jti(daemon.token))) ?? '';
    expect(first).toMatch(/local@localhost\s+full\s+-\s+\S+\s+never\s+-\s+first-start token \(written to (.+)\)$/);
    expect(first).toContain(`first-start token (written to ${hostname()}:${join(dir.path, 'token')})`);
    expect(listed.find((line) => line.startsWith(jti(other)))).toMatch(/never\s+-\s+-$/);
  });

  it('lists users with their password, sources and live tokens', async () => {
    await admin(
      dir.path,
      ['user', 'add', 'lister@example.com', '--name', 'Li Ster', '--password-stdin'],
      'correct horse',
    );
    const token = await admin(dir.path, ['token', 'create', 'lister@example.com']);
    const revoked = await admin(dir.path, ['token', 'create', 'lister@example.com']);
    await admin(dir.path, ['token', 'revoke', jti(revoked)]);
    await client(token).call(contract.createTrafficSource, {
      body: { name: 'shop', trafficDomain: 'shop.example.com' },
    });
    const listed = await admin(dir.path, ['user', 'list']);
    expect(listed.split('\n')[0]).toMatch(/^ID\s+EMAIL\s+NAME\s+PASSWORD\s+SOURCES\s+TOKENS\s+CREATED$/);
    expect(await userRow('lister@example.com')).toMatch(
      /^[0-9a-f-]{36}\s+lister@example\.com\s+Li Ster\s+yes\s+1\s+1\s+\d{4}-\d\d-\d\dT/,
    );
    expect(await userRow('local@localhost')).toMatch(/\s+Local user\s+no\s+0\s+1\s+/);
  });

  it('sets a password from standard input: the old one stops working, the new one logs in, tokens are kept', async () => {
    await admin(dir.path, ['user', 'add', 'pat@example.com', '--password-stdin'], 'old password');
    const token = await admin(dir.path, ['token', 'create', 'pat@example.com']);
    const changed = await run(['user', 'passwd', 'pat@example.com', '--password-stdin'], 'new password\n');
    expect(changed).toMatchObject({ exitCode: 0, stdout: '' });
    expect(changed.stderr).toMatch(/^taplined: set the password of pat@example\.com/);
    expect(await refusal(logIn('pat@example.com', 'old password'))).toEqual({ status: 401, code: 'login_failed' });
    expect((await logIn('pat@example.com', 'new password')).token).toMatch(/^ey/);
    expect((await client(token).call(contract.me)).email).toBe('pat@example.com');
  });

  it('refuses passwd for an unknown user (1), a short password (2), and without a terminal or --password-stdin (2)', async () => {
    expect(await run(['user', 'passwd', 'nobody@example.com', '--password-stdin'], 'long enough')).toMatchObject({
      exitCode: 1,
      stderr: 'taplined: no user with email nobody@example.com; see: taplined user list\n',
    });
    expect(await run(['user', 'passwd', 'pat@example.com', '--password-stdin'], 'short')).toMatchObject({
      exitCode: 2,
      stderr: 'taplined: the password must have at least 8 characters\n',
    });
    expect(await run(['user', 'passwd', 'pat@example.com'])).toMatchObject({
      exitCode: 2,
      stderr: 'taplined: no terminal to ask for the password on; pipe it in with --password-stdin\n',
    });
  });

  it('asks for the password twice on a terminal, without showing it', async () => {
    await admin(dir.path, ['user', 'add', 'tty@example.com']);
    const socket = `tapline-passwd-${process.pid}`;
    const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
    const screen = () => tmux('capture-pane', '-p', '-t', 'passwd');
    const command = `node ${TAPLINED} user passwd tty@example.com --home ${dir.path}; echo "exit=$?"; sleep 30`;
    tmux('new-session', '-d', '-s', 'passwd', '-x', '100', '-y', '10', command);
    try {
      await until(() => screen().includes('New password for tty@example.com:'), 'the first prompt');
      tmux('send-keys', '-t', 'passwd', '-l', 'typed in tmux');
      tmux('send-keys', '-t', 'passwd', 'Enter');
      await until(() => screen().includes('Again:'), 'the second prompt');
      tmux('send-keys', '-t', 'passwd', '-l', 'typed in tmux');
      tmux('send-keys', '-t', 'passwd', 'Enter');
      await until(() => screen().includes('exit='), 'taplined to exit');
      expect(screen()).toContain('exit=0');
      expect(screen()).not.toContain('typed in tmux');
    } finally {
      tmux('kill-server');
    }
    expect((await logIn('tty@example.com', 'typed in tmux')).token).toMatch(/^ey/);
  });

  it('refuses to remove a user who owns sources without --force, then removes them, their tokens and sources at once', async () => {
    await admin(dir.path, ['user', 'add', 'leaver@example.com']);
    const token = await admin(dir.path, ['token', 'create', 'leaver@example.com']);
    const source = await client(token).call(contract.createTrafficSource, {
      body: { name: 'api', trafficDomain: 'api.example.com' },
    });

    const refused = await run(['user', 'remove', 'leaver@example.com']);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toBe(
      'taplined: leaver@example.com owns 1 traffic source (api); remove it first, or pass --force to delete it and its traffic with the user\n',
    );
    expect((await client(token).call(contract.me)).email).toBe('leaver@example.com');

    const removed = await run(['user', 'remove', 'leaver@example.com', '--force']);
    expect(removed).toMatchObject({ exitCode: 0, stdout: '' });
    expect(removed.stderr).toBe(
      'taplined: removed leaver@example.com, its 1 token and 1 traffic source with its traffic\n',
    );
    expect(await refusal(client(token).call(contract.me))).toMatchObject({ status: 401 });
    expect(
      await refusal(
        client(daemon.token).call(contract.listTraffic, { params: { trafficSourceId: source.id }, query: {} }),
      ),
    ).toMatchObject({ status: 404 });
    expect(await userRow('leaver@example.com')).toBeUndefined();
    expect(await run(['user', 'remove', 'leaver@example.com'])).toMatchObject({
      exitCode: 1,
      stderr: 'taplined: no user with email leaver@example.com; see: taplined user list\n',
    });
  });

  it('removes a user without sources with no --force', async () => {
    await admin(dir.path, ['user', 'add', 'brief@example.com']);
    const removed = await run(['user', 'remove', 'brief@example.com']);
    expect(removed).toMatchObject({
      exitCode: 0,
      stderr: 'taplined: removed brief@example.com, its 0 tokens and 0 traffic sources with their traffic\n',
    });
  });

  it('lets a user change their own password with POST /auth/password, checking the current one', async () => {
    await admin(dir.path, ['user', 'add', 'self@example.com', '--password-stdin'], 'first password');
    const { token } = await logIn('self@example.com', 'first password');
    const change = (body: { currentPassword?: string; newPassword: string }, with_ = token) =>
      client(with_).call(contract.changePassword, { body });

    expect(await refusal(change({ newPassword: 'second password' }))).toEqual({ status: 403, code: 'wrong_password' });
    expect(await refusal(change({ currentPassword: 'not it at all', newPassword: 'second password' }))).toEqual({
      status: 403,
      code: 'wrong_password',
    });
    expect(await refusal(change({ currentPassword: 'first password', newPassword: 'short' }))).toMatchObject({
      status: 400,
      code: 'validation_failed',
    });
    const read = await admin(dir.path, ['token', 'create', 'self@example.com', '--scope', 'read']);
    expect(
      await refusal(change({ currentPassword: 'first password', newPassword: 'second password' }, read)),
    ).toMatchObject({ status: 403, code: 'forbidden' });

    await change({ currentPassword: 'first password', newPassword: 'second password' });
    expect(await refusal(logIn('self@example.com', 'first password'))).toEqual({ status: 401, code: 'login_failed' });
    expect((await logIn('self@example.com', 'second password')).token).toMatch(/^ey/);
    expect((await client(token).call(contract.me)).email).toBe('self@example.com');

    // A user made without a password (the local user, say) sets a first one with their token alone.
    await client(daemon.token).call(contract.changePassword, { body: { newPassword: 'local password' } });
    expect((await logIn('local@localhost', 'local password')).token).toMatch(/^ey/);
  });

  it('points a wrong log-in at `taplined user passwd`', async () => {
    const wrong = await cli(['--url', daemon.url, 'login', '--email', 'self@example.com', '--password-stdin'], {
      input: 'wrong password',
    });
    expect(wrong.exitCode).toBe(4);
    expect(wrong.stderr).toContain('taplined user passwd self@example.com');
    expect(wrong.stderr).not.toContain('user add');
  });
});
