import { chmodSync, cpSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { dirname, join } from 'node:path';
import { contract, createClient, DEFAULT_PORT } from '@tapline/shared';
import { execa, type ResultPromise } from 'execa';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { cleanEnv, TAPLINED, tempHome } from './support/binaries.js';
import { until } from '@tapline/testkit';

/**
 * How taplined starts and refuses to: the one stdout line, signals, flags, environment, a
 * busy port, and the admin subcommands' exit codes (0 ok, 1 failure, 2 bad usage).
 */

const homes: Array<{ remove(): void }> = [];
const children: ResultPromise[] = [];
const servers: Server[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null) child.kill('SIGKILL');
    await child;
  }
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
  for (const home of homes.splice(0)) home.remove();
});

function home(): string {
  const h = tempHome();
  homes.push(h);
  return h.path;
}

/** Runs taplined to completion (it must exit by itself) and never throws on a non-zero code. */
async function run(args: readonly string[], options: { env?: Record<string, string>; input?: string } = {}) {
  const result = await execa('node', [TAPLINED, ...args], {
    env: cleanEnv(options.env),
    extendEnv: false,
    reject: false,
    timeout: 20_000,
    ...(options.input !== undefined ? { input: options.input } : { stdin: 'ignore' as const }),
  });
  return { exitCode: result.exitCode, stdout: String(result.stdout), stderr: String(result.stderr) };
}

/** Starts taplined with exactly `args` and `env`, and resolves once stdout has a whole line. */
async function spawnDaemon(args: readonly string[], env: Record<string, string> = {}) {
  const child = execa('node', [TAPLINED, '--log-level', 'warn', ...args], {
    env: cleanEnv(env),
    extendEnv: false,
    reject: false,
  });
  children.push(child);
  let stdout = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  await until(() => stdout.includes('\n') || child.exitCode !== null, 'taplined to print a whole line', 20_000);
  if (!stdout.includes('\n'))
    throw new Error(`taplined exited with ${child.exitCode}: ${String((await child).stderr)}`);
  const line = stdout.split('\n')[0] ?? '';
  return {
    child,
    line,
    url: /^taplined listening on (http:\/\/\S+) \(database: .+\)$/.exec(line)?.[1] ?? '',
    stdout: () => stdout,
  };
}

describe('taplined start-up and shutdown', () => {
  it('prints exactly one stdout line, serves /healthz without a token and exits 0 on SIGTERM', async () => {
    const daemon = await spawnDaemon(['--port', '0', '--home', home()]);
    expect(daemon.line).toMatch(
      /^taplined listening on http:\/\/127\.0\.0\.1:[1-9]\d* \(database: sqlite .+\/tapline\.db\)$/,
    );
    const health = await createClient({ baseUrl: daemon.url }).call(contract.health);
    expect(health.status).toBe('ok');
    daemon.child.kill('SIGTERM');
    const result = await daemon.child;
    expect(result.exitCode).toBe(0);
    expect(daemon.stdout()).toBe(`${daemon.line}\n`);
  });

  it('exits 0 on SIGINT too', async () => {
    const daemon = await spawnDaemon(['--port', '0', '--home', home()]);
    daemon.child.kill('SIGINT');
    expect((await daemon.child).exitCode).toBe(0);
  });

  it('takes its port, home and database file from TAPLINE_PORT, TAPLINE_HOME and TAPLINE_DB', async () => {
    const dir = home();
    const dataHome = join(dir, 'data');
    // Port 0 through the variable: the OS picks a port, never the default one. (A port found free
    // and closed again could be taken by another test's process before the daemon binds it.)
    const daemon = await spawnDaemon([], {
      TAPLINE_PORT: '0',
      TAPLINE_HOME: dataHome,
      TAPLINE_DB: join(dir, 'custom.db'),
      TAPLINE_HOST: '127.0.0.1',
    });
    const port = Number(new URL(daemon.url).port);
    expect(port).not.toBe(DEFAULT_PORT);
    expect(daemon.line).toBe(
      `taplined listening on http://127.0.0.1:${port} (database: sqlite ${join(dir, 'custom.db')})`,
    );
    expect(statSync(join(dataHome, 'token')).mode & 0o777).toBe(0o600);
    expect(existsSync(join(dir, 'custom.db'))).toBe(true);
    expect(existsSync(join(dataHome, 'tapline.db'))).toBe(false);
    daemon.child.kill('SIGTERM');
    expect((await daemon.child).exitCode).toBe(0);
  });

  it('lets a flag win over its environment variable', async () => {
    const daemon = await spawnDaemon(['--port', '0', '--home', home()], { TAPLINE_PORT: 'not-a-port' });
    expect(daemon.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('exits 1 with a clear message when the port is already in use', async () => {
    const server = createServer();
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const fresh = home();
    const result = await run(['--port', String(port), '--home', fresh]);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`taplined: port ${port} on 127.0.0.1 is already in use`);
    // A start that failed hands out no credentials.
    expect(existsSync(join(fresh, 'token'))).toBe(false);
  });

  it('keeps the database owner-only even in a folder others can read', async () => {
    const dir = home();
    chmodSync(dir, 0o755);
    const daemon = await spawnDaemon(['--port', '0', '--home', dir]);
    expect(daemon.url).toMatch(/^http:/);
    for (const file of ['tapline.db', 'tapline.db-wal', 'tapline.db-shm', 'token']) {
      expect(statSync(join(dir, file)).mode & 0o777, file).toBe(0o600);
    }
  });

  it.each([
    [['--port', 'abc'], '--port takes a number from 0 to 65535 (got "abc")'],
    [['--port', '70000'], '--port takes a number from 0 to 65535'],
    [['--bogus'], "unknown option '--bogus'"],
    [['--max-body', '1'], '--max-body takes a size of at least 1kb'],
    [['--log-level', 'loud'], 'loud'],
    [['frobnicate'], 'too many arguments'],
    [['--ui-replay-origin', "http://dev:3000; script-src 'unsafe-inline'"], '--ui-replay-origin takes origins such as'],
    [['--ui-replay-origin', 'http://localhost:3000,http://[::1]:3000'], '(got "http://[::1]:3000")'],
  ])('exits 2 with a message for bad usage: %j', async (args, message) => {
    const result = await run([...args, '--home', home()]);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(message);
  });

  it('exits 2 when TAPLINE_PORT is not a port', async () => {
    const result = await run(['--home', home()], { env: { TAPLINE_PORT: 'abc' } });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('--port takes a number');
  });
});

describe("the daemon's code cache", () => {
  // The first start writes it under the flags it has set since (the lean heap's, or V8's growth
  // factor again without it); the next one, with or without the lean heap, runs under the start's.
  it.each([
    ['the lean heap', [], ['--no-lean-heap']],
    ['no lean heap', ['--no-lean-heap'], []],
  ])(
    'is written by a first start with %s and taken as it is by the next',
    async (_, firstArgs, nextArgs) => {
      // A copy of dist/ beside it (so that the bundle still finds its packages), with no cache yet,
      // that no other test's daemon writes a cache into.
      const dist = dirname(TAPLINED);
      const copy = mkdtempSync(join(dirname(dist), 'dist-cache-test-'));
      try {
        for (const name of readdirSync(dist).filter((n) => !n.endsWith('.cache')))
          cpSync(join(dist, name), join(copy, name), { recursive: true });
        const cacheOf = () => readdirSync(copy).filter((n) => n.endsWith('.cache'));
        const start = async (args: string[]) => {
          const child = execa(
            'node',
            [join(copy, 'taplined.js'), '--port', '0', '--home', home(), '--log-level', 'warn', ...args],
            {
              env: cleanEnv({}),
              extendEnv: false,
              reject: false,
            },
          );
          children.push(child);
          let stdout = '';
          child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
          await until(() => stdout.includes('listening on'), 'taplined to listen', 20_000);
          // Wrapped: a child process is a promise of its end, which an async function would wait for.
          return { child };
        };
        const { child: first } = await start(firstArgs);
        await until(() => cacheOf().length === 1, 'the first start to write its code cache', 20_000);
        first.kill('SIGTERM');
        expect((await first).exitCode).toBe(0);
        const [name = ''] = cacheOf();
        const written = statSync(join(copy, name));

        // The next start takes it: it writes the cache again only when V8 refused it (another Node,
        // other flags). A daemon that changed V8's flags at run time (its lean heap) and wrote the
        // cache under them had every later start refuse it.
        const { child: second } = await start(nextArgs);
        await new Promise((resolve) => setTimeout(resolve, 3_000)); // past the launcher's 1.5 s
        second.kill('SIGTERM');
        expect((await second).exitCode).toBe(0);
        expect(cacheOf()).toEqual([name]);
        const after = statSync(join(copy, name));
        expect({ ino: after.ino, mtimeMs: after.mtimeMs }).toEqual({ ino: written.ino, mtimeMs: written.mtimeMs });
      } finally {
        rmSync(copy, { recursive: true, force: true });
      }
    },
    60_000,
  );
});

describe('taplined admin subcommands', () => {
  const adminHome = tempHome();
  afterAll(() => adminHome.remove());

  it('print the new user id and the token alone on stdout', async () => {
    const added = await run(['user', 'add', 'ana@example.com', '--password-stdin', '--home', adminHome.path], {
      input: 'long enough\n',
    });
    // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- vitest's asymmetric matchers are typed `any`
    expect(added).toMatchObject({ exitCode: 0, stdout: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const token = await run(['token', 'create', 'ana@example.com', '--expires', '12h', '--home', adminHome.path]);
    // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- vitest's asymmetric matchers are typed `any`
    expect(token).toMatchObject({ exitCode: 0, stdout: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/) });
  });

  // These run after the test above made ana@example.com.
  it.each<[string[], string | undefined, number, string]>([
    [['user', 'add', 'ana@example.com'], undefined, 1, 'a user with email ana@example.com already exists'],
    [['user', 'add', 'not-an-email'], undefined, 2, '"not-an-email" is not a valid email address'],
    [['user', 'add', 'bo@example.com', '--password-stdin'], 'short', 2, 'the password must have at least 8 characters'],
    [['token', 'create', 'nobody@example.com'], undefined, 1, 'no user with email nobody@example.com'],
    [
      ['token', 'create', 'ana@example.com', '--scope', 'admin'],
      undefined,
      2,
      '--scope takes full, read or ingest (got "admin")',
    ],
    [['token', 'create', 'ana@example.com', '--expires', 'soon'], undefined, 2, '--expires takes a duration'],
    [
      ['token', 'create', 'ana@example.com', '--source', 'xyz'],
      undefined,
      2,
      '--source takes a traffic source id (a UUID)',
    ],
    [
      ['token', 'create', 'ana@example.com', '--source', '01a1fc92-0000-7000-8000-000000000000'],
      undefined,
      1,
      'ana@example.com owns no traffic source',
    ],
    [
      ['token', 'revoke', '01a1fc92-0000-7000-8000-000000000000'],
      undefined,
      1,
      'no token with id 01a1fc92-0000-7000-8000-000000000000',
    ],
  ])('%j exits with its code and message', async (args, input, exitCode, message) => {
    const result = await run([...args, '--home', adminHome.path], input === undefined ? {} : { input });
    expect({ exitCode: result.exitCode, stdout: result.stdout }, result.stderr).toEqual({ exitCode, stdout: '' });
    expect(result.stderr).toContain(`taplined: ${message}`);
  });
});

describe('a reader that closes the pipe early', () => {
  it('ends taplined --help quietly: exit 0, no stack trace', async () => {
    // `head -c 10` closes the pipe after ten bytes, while the help (over 60 lines) is still being written.
    const run = await execa(
      'bash',
      ['-c', `set -o pipefail; node ${JSON.stringify(TAPLINED)} --help | head -c 10 >/dev/null`],
      {
        env: cleanEnv(),
        reject: false,
      },
    );
    expect(run.stderr).toBe('');
    expect(run.exitCode).toBe(0);
  });
});
