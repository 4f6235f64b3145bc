import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { contract, createClient } from '@tapline/shared';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { tapline, type Tapline } from '../packages/node/src/index.js';
import { admin, type SpawnedDaemon, startDaemon, tempHome } from './support/binaries.js';

/**
 * `@tapline/node` against the built taplined, the way a user runs it: an ingest token made with
 * `taplined token create`, the source named, then the daemon killed under a live app.
 */
describe('@tapline/node with the built daemon', () => {
  const home = tempHome();
  let daemon: SpawnedDaemon | undefined;
  let app: Server | undefined;
  let t: Tapline | undefined;

  afterEach(async () => {
    await t?.close(200);
    if (app) {
      app.closeAllConnections();
      await new Promise<void>((resolve) => app?.close(() => resolve()));
    }
    if (daemon) await daemon.stop();
    home.remove();
  });

  it('records through an ingest token and keeps answering after the daemon dies', async () => {
    daemon = await startDaemon(home.path);
    const owner = createClient({ baseUrl: daemon.url, token: daemon.token });
    const source = await owner.call(contract.createTrafficSource, {
      body: { name: 'demo', trafficDomain: 'demo.local' },
    });
    const ingestToken = await admin(home.path, ['token', 'create', 'local@localhost', '--scope', 'ingest']);

    const drops: number[] = [];
    t = tapline({
      url: daemon.url,
      token: ingestToken,
      source: 'demo',
      queue: {
        maxQueue: 10,
        flushIntervalMs: 10,
        retry: { initialMs: 20, maxMs: 200 },
        onDrop: (e) => drops.push(e.total),
      },
    });
    const e = express();
    e.use(t);
    e.get('/hello/:name', (req, res) => {
      res.json({ hello: req.params.name });
    });
    e.get('/fail', () => {
      throw new Error('payment provider timed out');
    });
    e.use(tapline.errorHandler());
    app = createServer(e);
    app.listen(0, '127.0.0.1');
    await once(app, 'listening');
    const base = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;

    expect(await (await fetch(`${base}/hello/ann`)).json()).toEqual({ hello: 'ann' });
    expect((await fetch(`${base}/fail`)).status).toBe(500);
    expect(await t.flush()).toBe(true);
    const traffic = await owner.call(contract.listTraffic, { params: { trafficSourceId: source.id } });
    expect(traffic.data.map((entry) => `${entry.method} ${entry.pathname} ${entry.status}`).sort()).toEqual([
      'GET /fail 500',
      'GET /hello/ann 200',
    ]);
    const logs = await owner.call(contract.listCoreLogs, { params: { trafficSourceId: source.id } });
    expect(logs.data).toMatchObject([
      {
        description: 'payment provider timed out',
        source: 'demo',
        httpTrafficId: traffic.data.find((entry) => entry.status === 500)?.id,
      },
    ]);

    await daemon.kill();
    daemon = undefined;
    const started = performance.now();
    for (let i = 0; i < 30; i++) expect(await (await fetch(`${base}/hello/${i}`)).json()).toEqual({ hello: String(i) });
    expect(performance.now() - started).toBeLessThan(3000);
    expect(await t.flush(100)).toBe(false);
    expect(t.stats().dropped).toBeGreaterThanOrEqual(20);
    expect(drops.at(-1)).toBe(t.stats().dropped);
  });
});
