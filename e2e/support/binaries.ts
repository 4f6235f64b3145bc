import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa, type ResultPromise } from 'execa';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The built binaries, exactly the files a user's CI spawns. `pnpm test` builds them first. */
export const TAPLINED = join(root, 'packages', 'daemon', 'dist', 'taplined.js');
export const TAPLINE = join(root, 'packages', 'cli', 'dist', 'tapline.js');

export function tempHome(prefix = 'tapline-e2e-'): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/**
 * A copy of the daemon's build (its files but the code caches and source maps) in a new folder
 * beside dist/, named from `prefix`, so that the packages kept out of the bundle still resolve from
 * the package's node_modules. Its `taplined.js` is the entry to start (startDaemon's `entry`).
 */
export function copyOfDaemonBuild(prefix: string): { path: string; entry: string; remove(): void } {
  const dist = dirname(TAPLINED);
  const path = mkdtempSync(join(dirname(dist), prefix));
  for (const name of readdirSync(dist).filter((n) => !n.endsWith('.cache') && !n.endsWith('.map')))
    cpSync(join(dist, name), join(path, name), { recursive: true });
  return { path, entry: join(path, 'taplined.js'), remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** Environment without the developer's own Tapline settings leaking into a test. */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith('TAPLINE_') && key !== 'NO_COLOR' && key !== 'FORCE_COLOR')
      env[key] = value;
  }
  return { ...env, ...extra };
}

export interface SpawnedDaemon {
  readonly url: string;
  readonly home: string;
  /** The token the daemon wrote to `<home>/token` on first start. */
  readonly token: string;
  readonly process: ResultPromise;
  /** SIGTERM and wait; resolves to the exit code. */
  stop(): Promise<number | undefined>;
  /** SIGKILL and wait, for crash tests. */
  kill(): Promise<void>;
}

/** Waits for the `taplined listening on URL` line of `child` (any command that starts the daemon). */
export function listeningUrl(child: ResultPromise, command: string, timeoutMs: number): Promise<string> {
  return new Promise<string>((resolveUrl, reject) => {
    let seen = '';
    const timer = setTimeout(
      () => reject(new Error(`${command} did not start within ${timeoutMs / 1000} s: ${seen}`)),
      timeoutMs,
    );
    child.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /taplined listening on (http:\/\/\S+)/.exec(seen);
      if (match?.[1]) {
        clearTimeout(timer);
        resolveUrl(match[1]);
      }
    });
    void child.then((result) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited with ${result.exitCode} before listening: ${String(result.stderr)}`));
    });
  });
}

/**
 * Starts the built taplined (or the build at `entry`, copyOfDaemonBuild) on a free port in `home`,
 * and waits for its `listening on` line.
 */
export async function startDaemon(
  home: string,
  args: readonly string[] = [],
  env: Record<string, string> = {},
  entry = TAPLINED,
): Promise<SpawnedDaemon> {
  const child = execa('node', [entry, '--port', '0', '--home', home, '--log-level', 'warn', ...args], {
    env: cleanEnv(env),
    extendEnv: false,
    reject: false,
    buffer: { stdout: false, stderr: true },
  });
  const url = await listeningUrl(child, 'taplined', 20_000);
  return {
    url,
    home,
    token: readFileSync(join(home, 'token'), 'utf8').trim(),
    process: child,
    async stop() {
      child.kill('SIGTERM');
      return (await child).exitCode;
    },
    async kill() {
      child.kill('SIGKILL');
      await child;
    },
  };
}

/** Runs an admin subcommand of the built taplined against `home`; returns trimmed stdout. */
export async function admin(home: string, args: readonly string[], input?: string): Promise<string> {
  const result = await execa('node', [TAPLINED, ...args, '--home', home], {
    env: cleanEnv(),
    extendEnv: false,
    ...(input !== undefined ? { input } : {}),
  });
  return result.stdout.trim();
}

export interface CliResult {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the built tapline with `args`; never throws on a non-zero exit. */
export async function cli(
  args: readonly string[],
  options: { env?: Record<string, string>; input?: string; home?: string } = {},
): Promise<CliResult> {
  const homeArgs = options.home ? ['--home', options.home] : [];
  const result = await execa('node', [TAPLINE, ...homeArgs, ...args], {
    env: cleanEnv(options.env),
    extendEnv: false,
    reject: false,
    ...(options.input !== undefined ? { input: options.input } : { stdin: 'ignore' as const }),
  });
  return { exitCode: result.exitCode ?? -1, stdout: String(result.stdout), stderr: String(result.stderr) };
}

export interface SpawnedProxy {
  readonly url: string;
  readonly child: ResultPromise;
  stderr(): string;
}

/** Starts the built `tapline … proxy` with `args` and waits for its `listening on` line. */
export async function startProxy(args: readonly string[]): Promise<SpawnedProxy> {
  const child = execa('node', [TAPLINE, ...args], {
    env: cleanEnv(),
    extendEnv: false,
    reject: false,
    buffer: false,
    stdin: 'ignore',
  });
  let err = '';
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`tapline proxy did not start within 15 s: ${out} ${err}`)), 15_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /tapline proxy listening on (http:\/\/\S+)/.exec(out);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    void child.then((result) => {
      clearTimeout(timer);
      reject(new Error(`tapline proxy exited with ${result.exitCode} before listening: ${err}`));
    });
  });
  return { url, child, stderr: () => err };
}
