import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiService, LogService } from '@arkyn/server';
import { contract, createClient, type HttpTrafficRecord } from '@tapline/shared';
import express from 'express';
import { afterAll, describe, expect, it } from 'vitest';
import { admin, type SpawnedDaemon, startDaemon, tempHome } from './support/binaries.js';

/**
 * The real `@arkyn/server` SDK (the interface document's own client) reporting to the built
 * taplined, configured as docs/arkyn.md says: its LogService posts to `<logBaseApiUrl>/ingest-log`.
 */
describe('@arkyn/server reports to taplined unchanged', () => {
  const home = tempHome();
  let daemon: SpawnedDaemon | undefined;
  let origin: Server | undefined;

  afterAll(async () => {
    origin?.closeAllConnections();
    origin?.close();
    await daemon?.stop();
    home.remove();
  });

  it('every call through ApiService becomes a redacted entry with the route template as its pathname', async () => {
    daemon = await startDaemon(home.path);
    const owner = createClient({ baseUrl: daemon.url, token: daemon.token });
    const source = await owner.call(contract.createTrafficSource, {
      body: { name: 'shop', trafficDomain: 'shop.example.com' },
    });
    const ingestToken = await admin(home.path, [
      'token',
      'create',
      'local@localhost',
      '--scope',
      'ingest',
      '--source',
      source.id,
    ]);

    const app = express();
    app.use(express.json());
    app.post('/users/:id', (req, res) => {
      res
        .status(201)
        .set('set-cookie', 'sid=abc')
        .json({ id: req.params.id, echo: req.body as unknown });
    });
    app.get('/users', (_req, res) => {
      res.json({ users: ['bob'] });
    });
    app.delete('/users/:id', (_req, res) => {
      res.status(500).json({ message: 'database is down' });
    });
    origin = createServer(app).listen(0, '127.0.0.1');
    await once(origin, 'listening');
    const originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;

    LogService.setConfig({ trafficSourceId: source.id, userToken: ingestToken, logBaseApiUrl: daemon.url });
    const api = new ApiService({ baseUrl: originUrl });
    expect(
      (
        await api.post('/users/:id', {
          body: { name: 'Bob', password: 'hunter2' },
          urlParams: { id: '42' },
          token: 'user-secret',
        })
      ).status,
    ).toBe(201);
    expect((await api.get('/users?page=2')).status).toBe(200);
    expect((await api.delete('/users/:id', { urlParams: { id: '7' } })).status).toBe(500);

    // The SDK reports fire-and-forget after each answer: wait until all three are stored.
    const listed = async () =>
      (await owner.call(contract.listTraffic, { params: { trafficSourceId: source.id }, query: { limit: 10 } })).data;
    await expect.poll(async () => (await listed()).length, { timeout: 10_000 }).toBe(3);
    const records = new Map<string, HttpTrafficRecord>();
    for (const entry of await listed())
      records.set(
        entry.method,
        await owner.call(contract.getTraffic, { params: { trafficSourceId: source.id, id: entry.id } }),
      );

    expect(records.get('POST')).toMatchObject({
      status: 201,
      level: 'INFO',
      protocol: 'HTTP',
      domain: new URL(originUrl).host,
      pathname: '/users/:id',
      request: {
        headers: { Authorization: '[REDACTED]', 'Content-Type': 'application/json' },
        body: { name: 'Bob', password: '[REDACTED]' },
        queryParams: { id: '42' },
      },
      response: {
        headers: { 'set-cookie': '[REDACTED]' },
        body: { id: '42', echo: { name: 'Bob', password: '[REDACTED]' } },
      },
    });
    expect(records.get('GET')).toMatchObject({
      pathname: '/users',
      request: { body: null, queryParams: { page: '2' } },
      response: { body: { users: ['bob'] } },
    });
    expect(records.get('DELETE')).toMatchObject({
      status: 500,
      level: 'FATAL',
      pathname: '/users/:id',
      request: { queryParams: { id: '7' } },
    });
  });
});
