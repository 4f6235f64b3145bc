import { execa, type ResultPromise } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanEnv, type SpawnedDaemon, startDaemon, TAPLINE, tempHome } from './support/binaries.js';
import { compose, createSource } from './support/compose.js';
import { until } from '@tapline/testkit';

const portOf = (url: string) => new URL(url).port;
const count = (text: string, needle: string) => text.split('\n').filter((l) => l.includes(needle)).length;

describe('tapline traffic tail (built binaries)', () => {
  let home = tempHome();
  let daemon: SpawnedDaemon | undefined;
  let tail: ResultPromise | undefined;
  afterEach(async () => {
    tail?.kill('SIGKILL');
    await daemon?.stop();
    daemon = undefined;
    home.remove();
    home = tempHome();
  });

  function startTail(args: string[]) {
    let out = '';
    let err = '';
    const child = execa('node', [TAPLINE, '--home', home.path, '--url', daemon!.url, 'traffic', 'tail', ...args], {
      env: cleanEnv(),
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
      buffer: false,
    });
    child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
    tail = child;
    return { child, out: () => out, err: () => err };
  }

  it('prints the last lines, follows new entries, survives a daemon restart without loss or repeats, exits 0 on Ctrl-C', async () => {
    daemon = await startDaemon(home.path);
    const { token } = daemon;
    const sourceId = await createSource(daemon.url, token, 'shop');
    for (const n of [1, 2, 3]) await compose(daemon.url, token, sourceId, { pathnameUrl: `/before/${n}` });

    const t = startTail(['shop', '--lines', '2']);
    await until(() => t.out().includes('/before/3'), 'the last lines');
    expect(t.out()).not.toContain('/before/1');
    expect(t.out().indexOf('/before/2')).toBeLessThan(t.out().indexOf('/before/3'));

    await compose(daemon.url, token, sourceId, { pathnameUrl: '/live/1', status: 503, method: 'POST' });
    await until(() => t.out().includes('/live/1'), 'a followed entry');
    expect(t.out()).toMatch(/POST\s+503\s+FATAL\s+12ms shop\.example\.com\/live\/1/);

    const port = portOf(daemon.url);
    await daemon.stop();
    await until(() => t.err().includes('reconnecting'), 'the reconnect notice');
    daemon = await startDaemon(home.path, ['--port', port]);
    // Composed at once: the tail may not be back yet, and must still print it exactly once.
    await compose(daemon.url, token, sourceId, { pathnameUrl: '/after/1' });
    await until(() => t.out().includes('/after/1'), 'the entry after the restart');
    await compose(daemon.url, token, sourceId, { pathnameUrl: '/after/2' });
    await until(() => t.out().includes('/after/2'), 'the second entry after the restart');
    await until(() => t.err().includes('reconnected'), 'the reconnected notice');
    for (const path of ['/before/2', '/before/3', '/live/1', '/after/1', '/after/2'])
      expect(count(t.out(), path), path).toBe(1);

    t.child.kill('SIGINT');
    const result = await t.child;
    expect(result.exitCode).toBe(0);
  });

  it('--where filters, --ndjson prints one JSON entry per line', async () => {
    daemon = await startDaemon(home.path);
    const sourceId = await createSource(daemon.url, daemon.token, 'shop');
    await compose(daemon.url, daemon.token, sourceId, { pathnameUrl: '/ok' });
    await compose(daemon.url, daemon.token, sourceId, { pathnameUrl: '/boom', status: 500 });
    const t = startTail(['shop', '--where', 'status>=500', '--ndjson']);
    await until(() => t.out().includes('/boom'), 'the matching entry');
    await compose(daemon.url, daemon.token, sourceId, { pathnameUrl: '/fine' });
    await compose(daemon.url, daemon.token, sourceId, { pathnameUrl: '/broken', status: 502 });
    await until(() => t.out().includes('/broken'), 'the new matching entry');
    const lines = t
      .out()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { pathname: string; status: number });
    expect(lines.map((l) => l.pathname)).toEqual(['/boom', '/broken']);
  });

  it('prints an entry of its page once, though it was stored after the newest one shown (an old startedAt)', async () => {
    daemon = await startDaemon(home.path);
    const sourceId = await createSource(daemon.url, daemon.token, 'shop');
    await compose(daemon.url, daemon.token, sourceId, { pathnameUrl: '/now' });
    // Stored last, listed second: the stream replays it after the cursor the page's newest gives.
    await compose(daemon.url, daemon.token, sourceId, {
      pathnameUrl: '/late',
      startedAt: new Date(Date.now() - 60_000).toISOString(),
    });
    const t = startTail(['shop', '--lines', '2', '--ndjson']);
    await until(() => t.out().includes('/late'), 'the page');
    await compose(daemon.url, daemon.token, sourceId, { pathnameUrl: '/next' });
    await until(() => t.out().includes('/next'), 'the entry after the page');
    const paths = t
      .out()
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { pathname: string }).pathname);
    expect(paths).toEqual(['/late', '/now', '/next']);
  });

  it('a bad --where is a usage error pointing at the column', async () => {
    daemon = await startDaemon(home.path);
    await createSource(daemon.url, daemon.token, 'shop');
    const t = startTail(['shop', '--where', 'status>>5']);
    const result = await t.child;
    expect(result.exitCode).toBe(2);
    expect(t.err()).toMatch(/--where: .* at column \d+/);
  });
});
