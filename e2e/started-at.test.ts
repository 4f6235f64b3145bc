import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { contract, createClient } from '@tapline/shared';
import { execa, type ResultPromise } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanEnv, type SpawnedDaemon, startDaemon, TAPLINE, tempHome } from './support/binaries.js';

/**
 * The issue as a new user met it: requests through `tapline proxy` spread over a second, sent
 * while the daemon is down, keep the times they happened at once the daemon is back.
 */
describe('entries show when the request happened (startedAt)', () => {
  const home = tempHome();
  let daemon: SpawnedDaemon | undefined;
  const app = http.createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'),
  );
  let proxyChild: ResultPromise | undefined;

  afterAll(async () => {
    proxyChild?.kill('SIGKILL');
    await proxyChild;
    app.close();
    await daemon?.stop();
    home.remove();
  });

  it('five requests through the proxy over a second, while the daemon is down, keep their own times', async () => {
    daemon = await startDaemon(home.path);
    const port = new URL(daemon.url).port;
    const owner = createClient({ baseUrl: daemon.url, token: daemon.token });
    const source = await owner.call(contract.createTrafficSource, {
      body: { name: 'demo', trafficDomain: 'localhost' },
    });
    app.listen(0, '127.0.0.1');
    await once(app, 'listening');
    const target = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
    proxyChild = execa(
      'node',
      [
        TAPLINE,
        '--url',
        daemon.url,
        '--token',
        daemon.token,
        'proxy',
        '--source',
        source.id,
        '--target',
        target,
        '--listen',
        '127.0.0.1:0',
      ],
      {
        env: cleanEnv(),
        extendEnv: false,
        reject: false,
        stdin: 'ignore',
        buffer: false,
      },
    );
    const proxyUrl = await new Promise<string>((resolve) => {
      let out = '';
      proxyChild?.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = /listening on (http:\/\/\S+)/.exec(out);
        if (match?.[1]) resolve(match[1]);
      });
    });

    await daemon.stop();
    const sentAt: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      if (i > 0) await new Promise((resolve) => setTimeout(resolve, 250));
      sentAt.push(Date.now());
      expect((await fetch(`${proxyUrl}/items/${i}`)).status).toBe(200);
    }
    const restartedAt = Date.now();
    daemon = await startDaemon(home.path, ['--port', port]);
    // The proxy keeps what it could not send and retries until the daemon answers.
    const list = async () =>
      (await owner.call(contract.listTraffic, { params: { trafficSourceId: source.id }, query: {} })).data;
    await expect.poll(async () => (await list()).length, { timeout: 20_000 }).toBe(5);
    const byPath = new Map((await list()).map((e) => [e.pathname, Date.parse(e.createdAt)]));
    sentAt.forEach((sent, i) => {
      const createdAt = byPath.get(`/items/${i}`) ?? 0;
      expect(createdAt).toBeGreaterThanOrEqual(sent - 5);
      expect(createdAt).toBeLessThan(restartedAt);
    });
    const times = [...byPath.values()].sort();
    expect((times.at(-1) ?? 0) - (times[0] ?? 0)).toBeGreaterThanOrEqual(900);
  });
});
