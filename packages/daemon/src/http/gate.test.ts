import http from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../config.js';
import { createGate } from './gate.js';
import { composeBody, createSource, type Harness, startHarness, type TestUser } from '@tapline/testkit/daemon';

/**
 * Large batches pass a gate before their bodies are read: one at a time here. A batch whose body
 * is still arriving holds the gate, which makes "one is running" a state the test controls.
 */
describe('the large-batch gate', () => {
  let h: Harness;
  let user: TestUser;
  let path: string;
  let body: Buffer;

  beforeEach(async () => {
    h = await startHarness({
      config: { limits: { ...DEFAULT_LIMITS, largeBatchBytes: 4096, largeBatches: 1, largeBatchWaitMs: 400 } },
    });
    user = await h.user();
    const sourceId = (await createSource(user.client)).id;
    path = `/http-traffic-record/${sourceId}/batch`;
    body = Buffer.from(JSON.stringify(Array.from({ length: 40 }, () => composeBody(sourceId))));
    expect(body.length).toBeGreaterThan(4096);
  });
  afterEach(() => h.close());

  /** Starts a large batch and sends all but its last byte; `finish()` sends it and gives the answer. */
  function started(): { finish(): Promise<{ status: number; text: string }> } {
    const { port } = new URL(h.url);
    const finishers: Array<() => void> = [];
    const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.request({
        port,
        host: '127.0.0.1',
        path,
        method: 'POST',
        headers: {
          authorization: `Bearer ${user.token}`,
          'content-type': 'application/json',
          'content-length': body.length,
        },
      });
      req.on('response', (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on('error', reject);
      req.write(body.subarray(0, body.length - 1));
      finishers.push(() => req.end(body.subarray(body.length - 1)));
    });
    return {
      finish: () => {
        finishers.forEach((f) => f());
        return answer;
      },
    };
  }

  const post = () =>
    h.fetch(path, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.token}`, 'content-type': 'application/json' },
      body,
    });

  it('answers 503 overloaded with Retry-After to a large batch that waited too long, and serves it once the gate is free', async () => {
    const first = started();
    await expect.poll(() => h.deps.largeBodies.running).toBe(1);
    const refused = await post();
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('2');
    expect(await refused.json()).toEqual({
      statusCode: 503,
      error: 'Too many large batches at once; retry shortly',
      code: 'overloaded',
    });
    expect((await first.finish()).status).toBe(201);
    expect((await post()).status).toBe(201);
    expect(h.deps.largeBodies.running).toBe(0);
  });

  it('lets a waiting batch in as soon as the running one is answered', async () => {
    const first = started();
    await expect.poll(() => h.deps.largeBodies.running).toBe(1);
    const second = post();
    await expect.poll(() => h.deps.largeBodies.waiting).toBe(1);
    expect((await first.finish()).status).toBe(201);
    expect((await second).status).toBe(201);
  });

  it('does not hold small batches or ordinary requests at the gate', async () => {
    const large = started();
    await expect.poll(() => h.deps.largeBodies.running).toBe(1);
    const small = await h.fetch(path, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.token}`, 'content-type': 'application/json' },
      body: JSON.stringify([composeBody(path.split('/')[2] ?? '')]),
    });
    expect(small.status).toBe(201);
    expect((await large.finish()).status).toBe(201);
  });
});

it('tells its onRelease the bytes a holder held, once, and passes the place on', async () => {
  const released: (number | undefined)[] = [];
  const gate = createGate({ concurrency: 1, maxWaiting: 1, waitMs: 1_000, onRelease: (bytes) => released.push(bytes) });
  const first = await gate.enter();
  const second = gate.enter();
  first?.(1_500_000);
  first?.(1_500_000);
  (await second)?.();
  expect(released).toEqual([1_500_000, undefined]);
  expect(gate.running).toBe(0);
});
