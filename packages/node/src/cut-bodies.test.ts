import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { contract, type TaplineClient } from '@tapline/shared';
import express from 'express';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { type Harness, startHarness } from '@tapline/testkit/daemon';
import { tapline, type Tapline } from './index.js';

/**
 * Issue 24, problem 6: a body over `maxBody` is sent as cut text, which the daemon's key redaction
 * of parsed JSON never reached. The middleware redacts what it holds of a body before cutting it;
 * the daemon here runs with redaction off, so what is stored is what the middleware sent.
 */
let h: Harness;
let owner: TaplineClient;
let sourceId: string;
let t: Tapline;
let app: Server;

beforeEach(async () => {
  h = await startHarness({ config: { redact: { enabled: false, extraKeys: [] } } });
  const user = await h.user();
  owner = user.client;
  sourceId = (await owner.call(contract.createTrafficSource, { body: { name: 'shop', trafficDomain: 'shop.local' } }))
    .id;
  t = tapline({ url: h.url, token: user.token, source: 'shop', maxBody: 120, queue: { flushIntervalMs: 10 } });
  const e = express();
  const echo = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () =>
      res.writeHead(200, { 'content-type': req.headers['content-type'] ?? 'text/plain' }).end(Buffer.concat(chunks)),
    );
  };
  e.post('/parsed', express.json(), express.urlencoded({ extended: false }), t, (req, res) => {
    res.json(req.body);
  });
  e.post('/raw', t, echo);
  app = createServer(e);
  app.listen(0, '127.0.0.1');
  await once(app, 'listening');
});

afterEach(async () => {
  await t.close(1000);
  app.closeAllConnections();
  await new Promise<void>((resolve) => app.close(() => resolve()));
  await h.close();
});

const json = `{"user":"ann","password":"hunter2-aaaa","nested":{"ApiKey":"k-999"},"padding":"${'p'.repeat(20)}","refresh_token":"r-${'9'.repeat(60)}"}`;
const form = `user=ann&password=hunter2-aaaa&note=${'n'.repeat(60)}&access_token=t-${'9'.repeat(60)}`;

it('redacts a body it cuts, read by itself or by a body parser, before sending it: keys before the cut, a value the cut splits', async () => {
  const base = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
  for (const path of ['/raw', '/parsed']) {
    await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: json });
    await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
    });
  }
  expect(await t.flush()).toBe(true);
  const list = (await owner.call(contract.listTraffic, { params: { trafficSourceId: sourceId }, query: { limit: 10 } }))
    .data;
  expect(list).toHaveLength(4);
  for (const entry of list) {
    const record = await owner.call(contract.getTraffic, { params: { trafficSourceId: sourceId, id: entry.id } });
    for (const body of [record.request.body, record.response.body]) {
      // A cut body is a string; anything else fails the first expectation.
      const text = typeof body === 'string' ? body : JSON.stringify(body);
      expect(text, entry.pathname).toMatch(/…\[truncated by Tapline: \d+ of \d+ bytes shown\]$/);
      expect(text, entry.pathname).toContain('[REDACTED]');
      expect(text, entry.pathname).not.toMatch(/hunter2|k-999|r-9|t-9/);
    }
  }
});
