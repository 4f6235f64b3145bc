import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '@tapline/testkit';
import { cleanEnv, TAPLINED, tempHome } from './support/binaries.js';

/**
 * A daemon's start and its first answer do not load zod (docs/decisions.md §20.26): neither the
 * contract's schemas (§20.23) nor the daemon's own are built before a request, command or conflict
 * reads one. The built bundle is run, since in it "not loaded" means zod's module never ran.
 */

const probe = join(import.meta.dirname, 'support', 'zod-probe.cjs');
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startProbed(homePath: string) {
  const child = execa('node', ['-r', probe, TAPLINED, '--log-level', 'warn', '--port', '0', '--home', homePath], {
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
  /** Fetches `path` and gives the probe's line for its answer. */
  const get = async (path: string): Promise<{ path: string; zod: boolean }> => {
    const before = answers.split('\n').filter(Boolean).length;
    await (await fetch(`${url}${path}`)).arrayBuffer();
    await until(() => answers.split('\n').filter(Boolean).length > before, `the probe's line for ${path}`, 10_000);
    return JSON.parse(answers.split('\n').filter(Boolean)[before] ?? '{}') as { path: string; zod: boolean };
  };
  const stop = async () => {
    child.kill('SIGTERM');
    await child;
  };
  return { get, stop };
}

describe("a daemon's start does not load zod", () => {
  for (const state of ['an empty', 'an existing'] as const) {
    it(`answers its first /healthz on ${state} home with zod's module not run, and loads it on first use`, async () => {
      const home = tempHome();
      cleanups.push(() => home.remove());
      if (state === 'an existing') {
        const first = await startProbed(home.path);
        await first.get('/healthz');
        await first.stop();
      }
      const daemon = await startProbed(home.path);
      expect(await daemon.get('/healthz')).toEqual({ path: '/healthz', zod: false });
      // The probe sees zod when it has run: the OpenAPI document is built with it.
      expect(await daemon.get('/openapi.json')).toEqual({ path: '/openapi.json', zod: true });
    });
  }
});
