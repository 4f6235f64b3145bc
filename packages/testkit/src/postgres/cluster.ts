import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** Where Debian's `postgresql` packages put the server's programs, one folder per major version. */
const DEBIAN_ROOT = '/usr/lib/postgresql';

/** The newest installed server's `bin` folder (15 on Debian 12), or null when there is none. */
export function postgresBinaries(root = DEBIAN_ROOT): string | null {
  if (!existsSync(root)) return null;
  const versions = readdirSync(root).filter((v) => /^\d+$/.test(v) && existsSync(join(root, v, 'bin', 'postgres')));
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  return newest ? join(root, newest, 'bin') : null;
}

/** PostgreSQL refuses to run as root: as root the cluster belongs to the `postgres` user the package created. */
function runAs(): { readonly uid: number; readonly gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

/** Whether a throwaway cluster can be made here: the binaries, and a user allowed to run them. */
export function clusterUnavailable(): string | null {
  if (!postgresBinaries()) return `no PostgreSQL server programs under ${DEBIAN_ROOT} (apt-get install postgresql)`;
  if (process.getuid?.() === 0) {
    try {
      runAs();
    } catch {
      return 'running as root, and there is no postgres user to run the server as';
    }
  }
  return null;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

export interface Cluster {
  /** A superuser's URL, with a password, to the `postgres` database. */
  readonly url: string;
  /**
   * `pg_ctl stop -m fast`, as an operator restarting the server does: sessions are ended (57P01),
   * new connections refused, the data kept. `start` brings it back on the same port.
   */
  stopFast(): Promise<void>;
  /** Starts a server stopped by `stopFast` again; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops the server and removes its files. */
  stop(): Promise<void>;
}

async function waitUntilReady(url: string, server: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`PostgreSQL exited with code ${server.exitCode}:\n${log()}`);
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      return;
    } catch (error) {
      await client.end().catch(() => {});
      if (Date.now() > deadline)
        throw new Error(`PostgreSQL did not accept connections within 30 s: ${String(error)}\n${log()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

export interface ClusterOptions {
  /**
   * PostgreSQL's durable defaults (fsync, synchronous commit, full-page writes), as a team's server
   * runs: the benchmark's setting. Without it the cluster is tuned for tests (no fsync: a crash
   * loses nothing a test needs).
   */
  readonly durable?: boolean;
}

/**
 * A throwaway PostgreSQL cluster in a temporary folder, on a free loopback port. Local socket
 * connections are trusted; TCP ones need the password, so tests hold a URL with a secret in it,
 * as users do.
 */
export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const bin = postgresBinaries();
  if (!bin) throw new Error(clusterUnavailable() ?? 'no PostgreSQL');
  const owner = runAs();
  const dir = mkdtempSync(join(tmpdir(), 'tapline-pg-'));
  const data = join(dir, 'data');
  const password = randomBytes(12).toString('hex');
  writeFileSync(join(dir, 'password'), `${password}\n`, { mode: 0o600 });
  if (owner) for (const path of [dir, join(dir, 'password')]) chownSync(path, owner.uid, owner.gid);
  chmodSync(dir, 0o700);
  // Node switches user itself (as `runuser -u postgres` would), so signals reach the server directly.
  const identity = owner ? { uid: owner.uid, gid: owner.gid } : {};

  const initArgs = [
    '-D',
    data,
    '-U',
    'postgres',
    `--pwfile=${join(dir, 'password')}`,
    '--auth-local=trust',
    '--auth-host=scram-sha-256',
    '-E',
    'UTF8',
    '--locale=C.UTF-8',
    '--no-sync',
  ];
  execFileSync(join(bin, 'initdb'), initArgs, { stdio: 'pipe', ...identity });
  const port = await freePort();
  const fast = options.durable ? [] : ['fsync=off', 'synchronous_commit=off', 'full_page_writes=off'];
  const settings = [
    'listen_addresses=127.0.0.1',
    ...fast,
    'max_connections=300',
    options.durable ? 'shared_buffers=256MB' : 'shared_buffers=64MB',
  ];
  const args = ['-D', data, '-p', String(port), '-k', dir, ...settings.flatMap((s) => ['-c', s])];
  let log = '';
  const launch = () => {
    const started = spawn(join(bin, 'postgres'), args, { stdio: ['ignore', 'ignore', 'pipe'], ...identity });
    started.stderr?.on('data', (chunk: Buffer) => {
      log = (log + chunk.toString()).slice(-4000);
    });
    return started;
  };
  let server = launch();
  const url = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
  const exited = () =>
    server.exitCode === null && server.signalCode === null
      ? new Promise((resolve) => server.once('exit', resolve))
      : Promise.resolve();
  const stop = async () => {
    const exit = exited();
    // SIGINT is PostgreSQL's fast shutdown: open connections are ended, nothing is waited for.
    server.kill('SIGINT');
    await exit;
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitUntilReady(url, server, () => log);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url,
    stop,
    async stopFast() {
      const exit = exited();
      await run(join(bin, 'pg_ctl'), ['stop', '-D', data, '-m', 'fast', '-w'], identity);
      await exit;
    },
    async start() {
      server = launch();
      await waitUntilReady(url, server, () => log);
    },
  };
}

/** Asynchronous, so that whatever the test keeps running (clients under load) goes on meanwhile. */
function run(file: string, args: readonly string[], identity: { uid?: number; gid?: number }): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(file, args, identity, (error, _stdout, stderr) =>
      error ? reject(new Error(`${file} ${args.join(' ')}: ${stderr || error.message}`)) : resolve(),
    );
  });
}
