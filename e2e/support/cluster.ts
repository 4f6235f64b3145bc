import { execa, type ResultPromise } from 'execa';
import { cleanEnv, listeningUrl, TAPLINED, tempHome } from './binaries.js';

/** One of several built daemons on one database. */
export interface Member {
  readonly url: string;
  readonly home: string;
  readonly process: ResultPromise;
  /** What it wrote to stderr so far (its log, at `warn` and above). */
  stderr(): string;
  /** Whether the process has exited, by itself or by `kill`/`stop`. */
  exited(): boolean;
  /** SIGKILL and wait. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts the built taplined on `db` (a PostgreSQL URL) in a home of its own, on a free port. */
export async function startMember(db: string, args: readonly string[] = []): Promise<Member> {
  const home = tempHome('tapline-cluster-');
  const child = execa(
    'node',
    [
      TAPLINED,
      '--port',
      '0',
      '--home',
      home.path,
      '--db',
      db,
      '--log-level',
      'warn',
      '--allow-private-webhooks',
      ...args,
    ],
    {
      env: cleanEnv(),
      extendEnv: false,
      reject: false,
      buffer: { stdout: false, stderr: true },
    },
  );
  let stderr = '';
  let exited = false;
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  void child.then(() => (exited = true));
  const url = await listeningUrl(child, 'taplined', 30_000);
  return {
    url,
    home: home.path,
    process: child,
    stderr: () => stderr,
    exited: () => exited,
    async kill() {
      child.kill('SIGKILL');
      await child;
      home.remove();
    },
    async stop() {
      child.kill('SIGTERM');
      await child;
      home.remove();
    },
  };
}

/** Runs an admin subcommand of the built taplined on `db`; returns trimmed stdout. */
export async function adminOn(db: string, args: readonly string[]): Promise<string> {
  const home = tempHome('tapline-admin-');
  try {
    const result = await execa('node', [TAPLINED, ...args, '--db', db, '--home', home.path], {
      env: cleanEnv(),
      extendEnv: false,
    });
    return result.stdout.trim();
  } finally {
    home.remove();
  }
}
