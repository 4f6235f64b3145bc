import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { contract, createClient } from '@tapline/shared';
import { type Balancer, startBalancer, until } from '@tapline/testkit';
import { execa, type ResultPromise } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { admin, cleanEnv, type SpawnedDaemon, startDaemon, tempHome } from './support/binaries.js';

const APP = join(dirname(fileURLToPath(import.meta.url)), 'support', 'tapline-app.mjs');

interface App {
  readonly child: ResultPromise;
  readonly url: string;
  stderr(): string;
  stats(): Promise<{
    sent: number;
    rejected: number;
    failures: number;
    queued: number;
    rejectedBy: Record<string, number>;
  }>;
  flush(ms: number): Promise<boolean>;
}

/** The Express app of support/tapline-app.mjs, recording through the built @tapline/node. */
async function startApp(daemonUrl: string, token: string, source: string): Promise<App> {
  let err = '';
  let out = '';
  const child = execa('node', [APP], {
    env: cleanEnv({ APP_DAEMON_URL: daemonUrl, APP_TOKEN: token, APP_SOURCE: source }),
    extendEnv: false,
    reject: false,
    buffer: false,
  });
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  await until(() => /listening \d+/.test(out) || child.exitCode !== null, 'the app to listen', 20_000);
  const port = /listening (\d+)/.exec(out)?.[1];
  if (!port) throw new Error(`the app did not start: ${err}`);
  const url = `http://127.0.0.1:${port}`;
  return {
    child,
    url,
    stderr: () => err,
    stats: async () => (await (await fetch(`${url}/_stats`)).json()) as Awaited<ReturnType<App['stats']>>,
    flush: async (ms) =>
      ((await (await fetch(`${url}/_flush?ms=${ms}`, { method: 'POST' })).json()) as { flushed: boolean }).flushed,
  };
}

/**
 * `@tapline/node`, built, in a real Express app against the built daemon (issue 24, problems 5
 * and 17): a refusal is said once and never retried; a daemon that goes away and comes back on
 * the same port gets every record.
 */
describe('@tapline/node (built) when the daemon refuses or goes away', () => {
  let home = tempHome();
  let daemon: SpawnedDaemon | undefined;
  let app: App | undefined;
  let balancer: Balancer | undefined;
  afterEach(async () => {
    app?.child.kill('SIGKILL');
    await balancer?.close();
    await daemon?.stop();
    home.remove();
    home = tempHome();
    app = balancer = daemon = undefined;
  });

  it('with a bad token: exactly one warning line on stderr naming 401 and the daemon message, not the token; nothing retried', async () => {
    daemon = await startDaemon(home.path);
    await createClient({ baseUrl: daemon.url, token: daemon.token }).call(contract.createTrafficSource, {
      body: { name: 'demo', trafficDomain: 'demo.local' },
    });
    // Every request the daemon gets passes through here and is counted.
    balancer = await startBalancer([daemon.url]);
    const badToken = 'tl_0000000000000000000000000000000000000000000';
    app = await startApp(balancer.url, badToken, 'demo');
    for (let i = 0; i < 4; i++) {
      expect(await (await fetch(`${app.url}/hello/${i}`)).json()).toEqual({ hello: String(i) });
      expect(await app.flush(3_000)).toBe(true);
    }
    // One request per record (each was flushed alone), none sent again.
    expect(balancer.served).toHaveLength(4);
    expect(await app.stats()).toMatchObject({
      sent: 0,
      failures: 0,
      queued: 0,
      rejected: 4,
      rejectedBy: { unauthorized: 4 },
    });
    const warnings = app.stderr().trim().split('\n');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^@tapline\/node: the daemon at http:\/\/127\.0\.0\.1:\d+ refused the records for source "demo" \(401 Invalid token\): check the token\./,
    );
    expect(app.stderr()).not.toContain(badToken);
  });

  // Behind a proxy (nginx in docs/postgres.md) a stopped daemon is a 502, not a refused connection.
  it.each([
    { way: 'directly', proxied: false },
    { way: 'through a proxy that answers 502 meanwhile', proxied: true },
  ])(
    'delivers every request made while the daemon was stopped and started again on the same port ($way)',
    async ({ proxied }) => {
      daemon = await startDaemon(home.path);
      const port = new URL(daemon.url).port;
      const owner = createClient({ baseUrl: daemon.url, token: daemon.token });
      const source = await owner.call(contract.createTrafficSource, {
        body: { name: 'demo', trafficDomain: 'demo.local' },
      });
      const ingestToken = await admin(home.path, ['token', 'create', 'local@localhost', '--scope', 'ingest']);
      if (proxied) balancer = await startBalancer([daemon.url]);
      const running = await startApp(balancer?.url ?? daemon.url, ingestToken, 'demo');
      app = running;
      const served: string[] = [];
      const serve = async (n: number) => {
        for (let i = 0; i < n; i++) {
          const path = `/hello/${served.length}`;
          expect((await fetch(`${running.url}${path}`)).status).toBe(200);
          served.push(path);
        }
      };
      await serve(10);
      expect(await running.flush(5_000)).toBe(true);
      await daemon.stop();
      daemon = undefined;
      // A quiet app: one request while the daemon is away, its record alone in the queue.
      await serve(1);
      // Down about 8 s, as in issue 24's database restart: five failed tries, backing off.
      await until(
        async () => (await running.stats()).failures >= 5,
        'the recorder to keep retrying through the outage',
        20_000,
      );
      daemon = await startDaemon(home.path, ['--port', port]);
      await serve(10);
      expect(await running.flush(20_000)).toBe(true);
      const stats = await running.stats();
      expect(stats).toMatchObject({ sent: served.length, rejected: 0, queued: 0 });
      expect(stats.failures).toBeGreaterThan(0);
      const stored = await owner.call(contract.listTraffic, {
        params: { trafficSourceId: source.id },
        query: { limit: 1000 },
      });
      expect(stored.data.map((e) => e.pathname).sort()).toEqual([...served].sort());
      expect(running.stderr()).toBe('');
    },
    60_000,
  );
});
