import { request } from 'node:http';
import { execa, type ResultPromise } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { admin, cleanEnv, listeningUrl, TAPLINED, tempHome } from './support/binaries.js';
import { type Nginx, startNginx } from './support/nginx.js';
import { until } from '@tapline/testkit';

/**
 * The daemon behind nginx (issue 24, problem 11): without `--trust-proxy` a forwarded header is
 * ignored and never logs a stack trace; with it, the log-in rate limit and the audit line use the
 * address nginx forwarded. Debian's nginx runs as a child process in front of the built daemon.
 */

interface Daemon {
  readonly url: string;
  readonly process: ResultPromise;
  /** Everything on stderr so far. */
  stderr(): string;
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startDaemon(args: readonly string[] = []): Promise<Daemon> {
  const home = tempHome('tapline-proxy-');
  cleanups.push(() => home.remove());
  await admin(home.path, ['user', 'add', 'ana@example.com', '--password-stdin'], 'correct horse');
  const child = execa('node', [TAPLINED, '--port', '0', '--home', home.path, '--log-level', 'warn', ...args], {
    env: cleanEnv(),
    extendEnv: false,
    reject: false,
  });
  cleanups.push(async () => {
    child.kill('SIGTERM');
    await child;
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return { url: await listeningUrl(child, 'taplined', 20_000), process: child, stderr: () => stderr };
}

async function nginxFor(daemon: Daemon): Promise<Nginx> {
  const nginx = await startNginx([daemon.url]);
  cleanups.push(() => nginx.stop());
  return nginx;
}

/** A log-in sent from `from` (an address of 127.0.0.0/8) with the given extra headers; resolves to the status. */
function logIn(
  url: string,
  password: string,
  options: { from?: string; headers?: Record<string, string | string[]> } = {},
): Promise<number> {
  const body = JSON.stringify({ email: 'ana@example.com', password });
  return new Promise((resolve, reject) => {
    const req = request(`${url}/auth/token`, {
      method: 'POST',
      localAddress: options.from ?? '127.0.0.1',
      headers: {
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        ...options.headers,
      },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

interface AuditLine {
  event?: string;
  reason?: string;
  remoteAddress?: string;
  path?: string;
}

/** stderr as the log lines it must be: one JSON object each, and never a stack trace. */
function logLines(stderr: string): AuditLine[] {
  expect(stderr).not.toMatch(/ERR_ERL|\n\s+at |"stack"/);
  return stderr
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as AuditLine);
}

/**
 * Sends a request that writes one audit line naming `marker`, and waits for it: everything the
 * daemon logged before it (the requests under test) is then on stderr too.
 */
async function logSettled(daemon: Daemon, marker: string): Promise<AuditLine[]> {
  await fetch(`${daemon.url}/auth/me?${marker}`, { headers: { authorization: `Bearer ${marker}` } });
  await until(() => daemon.stderr().includes('"path":"/auth/me"'), 'the audit line of the marker request');
  return logLines(daemon.stderr());
}

const failedLogins = (lines: AuditLine[]) =>
  lines.filter((l) => l.event === 'authentication_failed' && l.reason === 'bad_credentials');

describe('taplined behind nginx (docs/postgres.md)', () => {
  it('without --trust-proxy: log-ins through nginx log no stack trace, and the audit line names nginx, the forwarded address ignored', async () => {
    const daemon = await startDaemon();
    const nginx = await nginxFor(daemon);
    expect(await logIn(nginx.url, 'correct horse', { from: '127.0.0.2' })).toBe(201);
    expect(await logIn(nginx.url, 'wrong horse', { from: '127.0.0.2' })).toBe(401);
    const lines = await logSettled(daemon, 'marker-1');
    expect(failedLogins(lines).map((l) => l.remoteAddress)).toEqual(['127.0.0.1']);
  });

  it('with --trust-proxy 127.0.0.1: the audit line and the rate limit use the client address nginx forwarded, not one the client made up', async () => {
    const daemon = await startDaemon(['--trust-proxy', '127.0.0.1']);
    const nginx = await nginxFor(daemon);
    expect(
      await logIn(nginx.url, 'wrong horse', { from: '127.0.0.2', headers: { 'x-forwarded-for': '203.0.113.9' } }),
    ).toBe(401);
    expect(await logIn(nginx.url, 'wrong horse', { from: '127.0.0.3' })).toBe(401);
    expect(failedLogins(await logSettled(daemon, 'marker-2')).map((l) => l.remoteAddress)).toEqual([
      '127.0.0.2',
      '127.0.0.3',
    ]);

    // 30 a minute per client address: 127.0.0.2 has used one, 127.0.0.3 one.
    const statuses = [];
    for (let i = 0; i < 30; i++) statuses.push(await logIn(nginx.url, 'wrong horse', { from: '127.0.0.2' }));
    expect(statuses.slice(0, 29).every((s) => s === 401)).toBe(true);
    expect(statuses[29]).toBe(429);
    expect(await logIn(nginx.url, 'correct horse', { from: '127.0.0.3' })).toBe(201);
  });

  it('refuses a --trust-proxy value it cannot read, in one line, exit 2', async () => {
    for (const value of ['yes', '10.0.0.0/33', '300.1.1.1', '0', '']) {
      const result = await execa('node', [TAPLINED, '--trust-proxy', value, '--port', '0'], {
        env: cleanEnv(),
        extendEnv: false,
        reject: false,
        stdin: 'ignore',
      });
      expect(result.exitCode, value).toBe(2);
      expect(String(result.stderr), value).toMatch(
        /^taplined: --trust-proxy takes "off", a number of proxies from 1, or proxy addresses .+ \(got ".*"\)$/,
      );
    }
    const fromEnv = await execa('node', [TAPLINED, '--port', '0'], {
      env: cleanEnv({ TAPLINE_TRUST_PROXY: 'everyone' }),
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
    });
    expect(fromEnv.exitCode).toBe(2);
    expect(String(fromEnv.stderr)).toContain('(got "everyone")');
  });
});

/**
 * Values a client may put in X-Forwarded-For or Forwarded to confuse an address parser. The first
 * comes first on purpose: express-rate-limit runs each of its checks on the first request only.
 */
const JUNK: Array<Record<string, string | string[]>> = [
  { 'x-forwarded-for': 'junk', forwarded: 'for=1.2.3.4' },
  { 'x-forwarded-for': '' },
  { 'x-forwarded-for': '1.2.3.4, , ,' },
  { 'x-forwarded-for': ',,,' },
  { 'x-forwarded-for': 'unknown' },
  { 'x-forwarded-for': '[::1]:80' },
  { 'x-forwarded-for': '300.1.1.1' },
  { 'x-forwarded-for': '::ffff:127.0.0.1' },
  { 'x-forwarded-for': 'for=1.2.3.4' },
  { 'x-forwarded-for': `${'9.'.repeat(3000)}9` },
  { 'x-forwarded-for': ['1.1.1.1', 'junk'] },
  { 'x-forwarded-for': '127.0.0.1' },
  { forwarded: 'for=1.2.3.4;proto=https' },
  { forwarded: 'for="[2001:db8::1]:4711"', 'x-forwarded-for': '2001:db8::1' },
];

describe('a client-sent forwarded header, whatever it holds', () => {
  for (const args of [[], ['--trust-proxy', 'loopback']]) {
    it(`never puts a stack trace in the log (taplined ${args.join(' ') || 'without --trust-proxy'})`, async () => {
      const daemon = await startDaemon(args);
      for (const headers of JUNK) {
        for (const password of ['correct horse', 'wrong horse']) {
          const status = await logIn(daemon.url, password, { headers });
          expect([201, 401], JSON.stringify(headers)).toContain(status);
        }
      }
      const lines = await logSettled(daemon, 'marker-3');
      expect(failedLogins(lines)).toHaveLength(JUNK.length);
      for (const line of failedLogins(lines)) expect(typeof line.remoteAddress).toBe('string');
    });
  }
});
