import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { contract, createClient } from '@tapline/shared';
import { type Balancer, startBalancer, until } from '@tapline/testkit';
import { execa, type ResultPromise } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { admin, cleanEnv, type SpawnedDaemon, startDaemon, TAPLINE, tempHome } from './support/binaries.js';

/**
 * `tapline proxy` (built) whose records the daemon starts refusing: the source is deleted under
 * it. The refusal is said once on stderr with the daemon's message, and never retried (issue 24,
 * problem 17: the proxy shares the recorder of `@tapline/node`).
 */
describe('tapline proxy when the daemon refuses its records', () => {
  const home = tempHome();
  let daemon: SpawnedDaemon | undefined;
  let balancer: Balancer | undefined;
  let target: Server | undefined;
  let proxy: ResultPromise | undefined;
  afterEach(async () => {
    proxy?.kill('SIGKILL');
    await balancer?.close();
    target?.closeAllConnections();
    target?.close();
    await daemon?.stop();
    home.remove();
  });

  it('says so once, with the status and message, drops them without retrying, and counts them in the summary', async () => {
    daemon = await startDaemon(home.path);
    const owner = createClient({ baseUrl: daemon.url, token: daemon.token });
    const source = await owner.call(contract.createTrafficSource, {
      body: { name: 'demo', trafficDomain: 'localhost' },
    });
    const ingestToken = await admin(home.path, ['token', 'create', 'local@localhost', '--scope', 'ingest']);
    target = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => target?.listen(0, '127.0.0.1', resolve));
    // Between the proxy and the daemon: counts every request the daemon gets.
    balancer = await startBalancer([daemon.url]);

    let out = '';
    let err = '';
    const child = execa(
      'node',
      [
        TAPLINE,
        '--url',
        balancer.url,
        '--token',
        ingestToken,
        'proxy',
        '--source',
        'demo',
        '--target',
        `http://127.0.0.1:${(target.address() as AddressInfo).port}`,
        '--listen',
        '127.0.0.1:0',
      ],
      {
        env: cleanEnv(),
        extendEnv: false,
        reject: false,
        buffer: false,
        stdin: 'ignore',
      },
    );
    proxy = child;
    child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
    await until(() => /listening on http:\/\/\S+/.test(out), 'the proxy to listen', 20_000);
    const proxyUrl = /listening on (http:\/\/\S+)/.exec(out)?.[1] ?? '';

    /** One request through the proxy, then its record's request at the daemon. */
    const oneRecord = async (path: string) => {
      const before = balancer?.served.length ?? 0;
      expect(await (await fetch(`${proxyUrl}${path}`)).text()).toBe('ok');
      await until(() => (balancer?.served.length ?? 0) > before, `the record of ${path} to reach the daemon`, 20_000);
    };
    await oneRecord('/stored');
    await owner.call(contract.deleteTrafficSource, { params: { trafficSourceId: source.id } });
    for (const path of ['/a', '/b', '/c']) await oneRecord(path);
    const requests = balancer.served.length;

    child.kill('SIGINT');
    expect((await child).exitCode).toBe(0);
    // Nothing was sent again while the proxy stopped: one request per record, the source lookup before them.
    expect(balancer.served.length).toBe(requests);
    const lines = err.trim().split('\n');
    expect(lines.filter((l) => /refused/.test(l))).toEqual([
      'tapline proxy: the daemon refused the records (404 Traffic Source not found); they are dropped, not retried: see `tapline sources list`',
    ]);
    expect(err).not.toMatch(/retrying/);
    expect(lines.at(-1)).toMatch(/^tapline proxy: forwarded 4; stored 1; dropped 3;/);
  }, 60_000);
});
