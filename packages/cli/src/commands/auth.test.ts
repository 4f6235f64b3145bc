import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Harness, passwordUser, startHarness } from '@tapline/testkit/daemon';
import { EXIT } from '../exit-codes.js';
import { run } from '@tapline/testkit/cli';

let h: Harness;
let home: string;
const PASSWORD = 'correct horse';

beforeAll(async () => {
  h = await startHarness();
  await passwordUser(h, 'ana@example.com', PASSWORD);
});
afterAll(() => h.close());
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'tapline-auth-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const tapline = (argv: string[], input?: string) =>
  run(['--home', home, ...argv], input === undefined ? {} : { input });
const login = () =>
  tapline(['--url', h.url, 'login', '--email', 'ana@example.com', '--password-stdin'], `${PASSWORD}\n`);
const tokensOfAna = () =>
  h.deps.db
    .selectFrom('tokens')
    .innerJoin('users', 'users.id', 'tokens.user_id')
    .select(['tokens.revoked_at'])
    .where('users.email', '=', 'ana@example.com')
    .execute();
/** The id of a process that has ended: what a daemon killed without a clean stop leaves in daemon.json. */
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid;

describe('tapline auth status and logout', () => {
  it('auth status says who, which daemon, where the token came from, its scope and expiry; logout revokes and forgets', async () => {
    expect((await login()).code).toBe(EXIT.OK);
    const status = await tapline(['--url', h.url, 'auth', 'status']);
    expect(status.code, status.stderr).toBe(EXIT.OK);
    expect(status.stdout).toContain(`daemon   ${h.url}  (from --url)`);
    expect(status.stdout).toContain('user     ana@example.com');
    expect(status.stdout).toMatch(
      new RegExp(
        `token {4}full scope, expires \\d{4}-\\d\\d-\\d\\dT[^ ]+ \\(in (29|30) days\\), from ${join(home, 'credentials')}`,
      ),
    );
    const json = (await tapline(['--url', h.url, 'auth', 'status', '--json'])).json<{
      expiresAt: string;
      scope: string;
    }>();
    expect(Date.parse(json.expiresAt) - Date.now()).toBeGreaterThan(29 * 86_400_000);

    const out = await tapline(['logout']);
    expect(out.code, out.stderr).toBe(EXIT.OK);
    expect(out.stdout).toBe(`logged out of ${h.url} as ana@example.com; removed ${join(home, 'credentials')}\n`);
    expect(out.stderr).toContain('the token was revoked at the daemon');
    expect((await tokensOfAna()).every((t) => t.revoked_at !== null)).toBe(true);

    const none = await tapline(['--url', h.url, 'auth', 'status']);
    expect(none.code).toBe(EXIT.AUTH);
    expect(none.stderr).toContain('tapline: not logged in: no token');
    const again = await tapline(['--url', h.url, 'logout']);
    expect([again.code, again.stdout]).toEqual([
      EXIT.OK,
      `not logged in (no ${join(home, 'credentials')}); nothing to do\n`,
    ]);
  });

  it('auth status exits 4 when the daemon refuses the token', async () => {
    const refused = await tapline(['--url', h.url, '--token', 'not-a-jwt', 'auth', 'status']);
    expect(refused.code).toBe(EXIT.AUTH);
    expect(refused.stderr).toContain('the daemon refused the token');
  });

  it('logout with the daemon gone still forgets the login, and says the token stays valid', async () => {
    writeFileSync(
      join(home, 'credentials'),
      JSON.stringify({ token: 'x.y.z', url: 'http://127.0.0.1:9', email: 'ana@example.com' }),
    );
    const out = await tapline(['logout']);
    expect(out.code).toBe(EXIT.OK);
    expect(out.stderr).toMatch(
      /could not be revoked \(cannot reach the Tapline daemon at http:\/\/127\.0\.0\.1:9 .*\); it stays valid/,
    );
    expect(() => readFileSync(join(home, 'credentials'))).toThrow();
  });

  it('a login whose credentials cannot be saved revokes the token it got, then fails', async () => {
    // The home is a file: nothing can be written below it (a read-only home, even for root).
    const blocked = join(home, 'not-a-dir');
    writeFileSync(blocked, '');
    const result = await run(
      ['--home', blocked, '--url', h.url, 'login', '--email', 'ana@example.com', '--password-stdin'],
      { input: PASSWORD },
    );
    expect(result.code).toBe(EXIT.UNEXPECTED);
    expect(result.stderr).toContain(`tapline: cannot save the login to ${join(blocked, 'credentials')}`);
    expect(result.stderr).toContain('so the new token was revoked');
    const tokens = await tokensOfAna();
    expect(tokens.length).toBeGreaterThan(0);
    expect(tokens.every((t) => t.revoked_at !== null)).toBe(true);
  });
});

describe('finding the daemon through <home>/daemon.json', () => {
  it('is used when no --url or TAPLINE_URL is given; a login through it stores no URL', async () => {
    writeFileSync(join(home, 'daemon.json'), JSON.stringify({ url: h.url, pid: process.pid }));
    const user = await h.user();
    const status = await tapline(['--token', user.token, 'status']);
    expect(status.code, status.stderr).toBe(EXIT.OK);
    expect(status.stdout).toContain(`daemon   ${h.url}  ok`);
    expect((await tapline(['login', '--email', 'ana@example.com', '--password-stdin'], PASSWORD)).code).toBe(EXIT.OK);
    expect(JSON.parse(readFileSync(join(home, 'credentials'), 'utf8'))).not.toHaveProperty('url');
    expect((await tapline(['auth', 'status'])).stdout).toContain(`(from ${join(home, 'daemon.json')})`);
  });

  it('a stale file (its daemon gone) is an error naming the file, exit 3', async () => {
    writeFileSync(join(home, 'daemon.json'), JSON.stringify({ url: 'http://127.0.0.1:9', pid: deadPid() }));
    const status = await tapline(['--token', 't', 'status']);
    expect(status.code).toBe(EXIT.UNREACHABLE);
    expect(status.stderr).toContain(`tapline: the daemon recorded in ${join(home, 'daemon.json')}`);
    expect(status.stderr).toContain('is no longer running');
    expect(status.stderr).toContain(`taplined --home ${home}`);
  });
});
