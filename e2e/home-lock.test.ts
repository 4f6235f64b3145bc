import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { contract, createClient } from '@tapline/shared';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { admin, cleanEnv, type SpawnedDaemon, startDaemon, TAPLINED, tempHome } from './support/binaries.js';

/**
 * One daemon per home (issue 24, problem 9): a second `taplined` on a home whose daemon runs
 * refuses to start, naming the first; a daemon killed with SIGKILL leaves nothing that stops the
 * next; the admin subcommands keep working beside a live daemon.
 */

const homes: Array<{ remove(): void }> = [];
const daemons: SpawnedDaemon[] = [];

afterEach(async () => {
  for (const daemon of daemons.splice(0)) if (daemon.process.exitCode === null) await daemon.kill();
  for (const home of homes.splice(0)) home.remove();
});

function home(): string {
  const h = tempHome('tapline-lock-');
  homes.push(h);
  return h.path;
}

async function daemonOn(dir: string): Promise<SpawnedDaemon> {
  const daemon = await startDaemon(dir);
  daemons.push(daemon);
  return daemon;
}

/** Starts taplined on `dir` and waits for it to exit by itself (a refused start). */
async function refusedStart(dir: string) {
  const result = await execa('node', [TAPLINED, '--port', '0', '--home', dir], {
    env: cleanEnv(),
    extendEnv: false,
    reject: false,
    timeout: 20_000,
    stdin: 'ignore',
  });
  return { exitCode: result.exitCode, stdout: String(result.stdout), stderr: String(result.stderr) };
}

const endpoint = (dir: string) => readFileSync(join(dir, 'daemon.json'), 'utf8');
const healthy = async (url: string) => (await createClient({ baseUrl: url }).call(contract.health)).status;

describe('one taplined per home', () => {
  it('refuses a second daemon on a home in use, in one line naming the first one’s pid and address, and leaves its daemon.json alone', async () => {
    const dir = home();
    const first = await daemonOn(dir);
    const written = endpoint(dir);

    const second = await refusedStart(dir);
    expect(second.exitCode).toBe(1);
    expect(second.stdout).toBe('');
    const lines = second.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^taplined: /);
    expect(lines[0]).toContain(`pid ${first.process.pid}`);
    expect(lines[0]).toContain(first.url);
    expect(lines[0]).toContain(dir);

    expect(endpoint(dir)).toBe(written);
    expect(await healthy(first.url)).toBe('ok');
    expect(await first.stop()).toBe(0);
    expect(existsSync(join(dir, 'daemon.json'))).toBe(false);
  });

  it('starts after a daemon on the same home was killed with SIGKILL: a crash leaves no stale lock', async () => {
    const dir = home();
    const crashed = await daemonOn(dir);
    await crashed.kill();
    const next = await daemonOn(dir);
    expect(JSON.parse(endpoint(dir))).toEqual({ url: next.url, pid: next.process.pid });
    expect(await healthy(next.url)).toBe('ok');
  });

  it('lets exactly one of three daemons started together on one home run', async () => {
    const dir = home();
    const started = await Promise.allSettled([0, 1, 2].map(() => startDaemon(dir)));
    const running = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    daemons.push(...running);
    expect(running).toHaveLength(1);
    for (const s of started)
      if (s.status === 'rejected')
        expect(String(s.reason)).toMatch(/exited with 1 before listening: taplined: another taplined/);
    expect(JSON.parse(endpoint(dir))).toEqual({ url: running[0]!.url, pid: running[0]!.process.pid });
  });

  it('keeps the admin subcommands working beside the daemon running on that home', async () => {
    const dir = home();
    const daemon = await daemonOn(dir);
    expect(await admin(dir, ['user', 'add', 'ana@example.com'])).toMatch(/^[0-9a-f-]{36}$/);
    const token = await admin(dir, ['token', 'create', 'ana@example.com']);
    expect((await createClient({ baseUrl: daemon.url, token }).call(contract.me)).email).toBe('ana@example.com');
    expect(await admin(dir, ['token', 'list'])).toContain('ana@example.com');
    expect(await admin(dir, ['prune', '--older-than', '1d'])).toMatch(/^removed 0 entries/);
    expect(await admin(dir, ['check'])).toMatch(/ok/i);
    await admin(dir, ['backup', join(dir, 'copy.db')]);
    expect(existsSync(join(dir, 'copy.db'))).toBe(true);
    expect(await healthy(daemon.url)).toBe('ok');
  });
});
