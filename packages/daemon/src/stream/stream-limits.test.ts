import { connect } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSource, type Harness, startHarness, type TestUser } from '@tapline/testkit/daemon';
import { DEFAULT_LIMITS } from '../config.js';

/** Open streams are limited per token and in all: one more is a 429 with Retry-After. */
describe('stream limits', () => {
  let h: Harness;
  let user: TestUser;
  let sourceId: string;
  const open: AbortController[] = [];

  beforeEach(async () => {
    h = await startHarness({ config: { limits: { ...DEFAULT_LIMITS, streamsPerToken: 2, streams: 3 } } });
    user = await h.user();
    sourceId = (await createSource(user.client)).id;
  });
  afterEach(async () => {
    open.splice(0).forEach((c) => c.abort());
    await h.close();
  });

  async function stream(token: string, source = sourceId): Promise<Response> {
    const controller = new AbortController();
    open.push(controller);
    return h.fetch(`/http-traffic/${source}/stream`, {
      headers: { authorization: `Bearer ${token}` },
      signal: controller.signal,
    });
  }

  it('answers 429 too_many_streams past the per-token limit, and takes the token again once one closes', async () => {
    expect((await stream(user.token)).status).toBe(200);
    expect((await stream(user.token)).status).toBe(200);
    const refused = await stream(user.token);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(await refused.json()).toEqual({
      statusCode: 429,
      error: 'Too many open streams: the daemon allows 2 open streams per token; close one or retry later',
      code: 'too_many_streams',
    });
    open[0]?.abort();
    await expect.poll(async () => (await stream(user.token)).status).toBe(200);
  });

  it('gives the place back of a client that hung up before its stream was admitted', async () => {
    // Each client sends its request and closes at once: its socket closes while the daemon
    // authenticates it, before the stream takes its place.
    const { hostname, port } = new URL(h.url);
    for (let i = 0; i < 6; i++)
      await new Promise<void>((resolve) => {
        const socket = connect(Number(port), hostname, () => {
          socket.end(
            `GET /http-traffic/${sourceId}/stream HTTP/1.1\r\nhost: ${hostname}\r\nauthorization: Bearer ${user.token}\r\n\r\n`,
          );
          socket.destroy();
        });
        socket.on('close', () => resolve());
      });
    await expect.poll(async () => (await stream(user.token)).status).toBe(200);
    expect((await stream(user.token)).status).toBe(200);
  });

  it('counts every token against the total', async () => {
    const other = await h.user();
    const otherSource = (await createSource(other.client)).id;
    expect((await stream(user.token)).status).toBe(200);
    expect((await stream(user.token)).status).toBe(200);
    expect((await stream(other.token, otherSource)).status).toBe(200);
    const refused = await stream(other.token, otherSource);
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: string }).error).toBe(
      'Too many open streams: the daemon allows 3 open streams; close one or retry later',
    );
  });
});
