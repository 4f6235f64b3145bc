import { execa } from 'execa';
import { until } from '@tapline/testkit';
import { cleanEnv, TAPLINED } from './binaries.js';

/**
 * The built daemon started with a preloaded `probe` that writes one JSON line to fd 3 after each
 * answer (e2e/start-loads-no-zod.test.ts, e2e/second-file.test.ts). `send` makes a request and
 * gives its answer's body with the probe's line for it; `cleanups` gets what kills it. `taplined`:
 * another copy of the built daemon than the workspace's.
 */
export async function startProbed<Line>(
  probe: string,
  homePath: string,
  cleanups: Array<() => Promise<void> | void>,
  flags: readonly string[] = [],
  taplined = TAPLINED,
) {
  const args = ['-r', probe, taplined, '--log-level', 'warn', '--port', '0', '--home', homePath, ...flags];
  const child = execa('node', args, {
    env: cleanEnv(),
    extendEnv: false,
    reject: false,
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
  });
  cleanups.push(async () => {
    if (child.exitCode === null) child.kill('SIGKILL');
    await child;
  });
  let stdout = '';
  let answers = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stdio[3]?.on('data', (chunk: Buffer) => (answers += chunk.toString()));
  await until(() => stdout.includes('\n') || child.exitCode !== null, 'taplined to print a whole line', 20_000);
  const url = /^taplined listening on (http:\/\/\S+) /.exec(stdout)?.[1];
  if (!url) throw new Error(`taplined did not start: ${stdout}`);
  const lines = () => answers.split('\n').filter(Boolean);
  const send = async (path: string, init: RequestInit = {}): Promise<{ seen: Line; body: string }> => {
    const before = lines().length;
    const body = await (await fetch(`${url}${path}`, init)).text();
    await until(() => lines().length > before, `the probe's line for ${path}`, 10_000);
    return { seen: JSON.parse(lines()[before] ?? '{}') as Line, body };
  };
  const stop = async () => {
    child.kill('SIGTERM');
    await child;
  };
  return { send, stop };
}
