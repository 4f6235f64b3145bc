import type { AddressInfo } from 'node:net';
import { contract } from '@tapline/shared';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createApp } from '../app.js';
import { defaultConfig } from '../config.js';
import { createTrafficBus, type IngestHook, type StoredEntry } from '../stream/bus.js';
import { composeBody, startHarness, openTestDatabase } from '@tapline/testkit/daemon';
import { createInflight } from './inflight.js';

describe('in-flight handlers', () => {
  it('drains once every tracked handler has settled, failed ones included, and work added meanwhile', async () => {
    const inflight = createInflight();
    const order: string[] = [];
    let finishFirst = () => {};
    const first = inflight.track(
      new Promise<void>((resolve) => (finishFirst = resolve)).then(() => void order.push('first')),
    );
    const failing = inflight.track(Promise.reject(new Error('client error')));
    await expect(failing).rejects.toThrow('client error');
    const drained = inflight.drain(5_000).then((idle) => {
      order.push('drained');
      return idle;
    });
    // Work that starts while draining is waited for too.
    let finishLate = () => {};
    void inflight.track(new Promise<void>((resolve) => (finishLate = resolve)).then(() => void order.push('late')));
    finishFirst();
    await first;
    // drain waits on promises alone: a turn of the event loop runs every callback it could run.
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['first']);
    finishLate();
    expect(await drained).toBe(true);
    expect(order).toEqual(['first', 'late', 'drained']);
  });

  it('gives up after the time-out instead of waiting for ever', async () => {
    const inflight = createInflight();
    void inflight.track(new Promise(() => {}));
    expect(await inflight.drain(20)).toBe(false);
  });

  it('drains at once when nothing runs', async () => {
    expect(await createInflight().drain(1_000)).toBe(true);
  });
});

describe('stopping the daemon', () => {
  it('answers requests that arrive once it is stopping with 503 and Connection: close', async () => {
    const opened = await openTestDatabase();
    const { app, stop } = createApp({
      db: opened.db,
      dialect: opened.dialect,
      config: defaultConfig('0.0.0-test'),
      logger: pino({ level: 'silent' }),
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      await stop();
      const late = await fetch(`${url}/healthz`);
      expect(late.status).toBe(503);
      expect(late.headers.get('connection')).toBe('close');
      expect(await late.json()).toEqual({ statusCode: 503, error: 'The daemon is stopping', code: 'stopping' });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await opened.close();
    }
  });

  it('lets a compose whose client hung up finish before the database closes', async () => {
    let entered = () => {};
    const inHook = new Promise<void>((resolve) => (entered = resolve));
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    // The ingest transaction pauses here, as a batch waiting on its worker thread would.
    const pause: IngestHook = async () => {
      entered();
      await released;
    };
    const bus = createTrafficBus();
    const committed: StoredEntry[] = [];
    bus.subscribe((entries) => committed.push(...entries.map((c) => c.entry)));
    const h = await startHarness({ ingestHooks: [pause], bus });
    const { client, token } = await h.user();
    const source = await client.call(contract.createTrafficSource, {
      body: { name: 'shop', trafficDomain: 'shop.example.com' },
    });

    const gaveUp = new AbortController();
    const request = h.fetch(`/http-traffic-record/${source.id}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(composeBody(source.id)),
      signal: gaveUp.signal,
    });
    await inHook;
    gaveUp.abort();
    await expect(request).rejects.toThrow();
    const closed = h.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    await closed;
    // The transaction committed after the client left and before the database closed.
    expect(committed).toHaveLength(1);
  });
});
