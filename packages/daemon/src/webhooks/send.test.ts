import { describe, expect, it } from 'vitest';
import { backoffMs, retryAfterMs } from './retry.js';
import { send } from './send.js';
import { startReceiver } from '@tapline/testkit/daemon';

describe('send: addresses are checked again at delivery', () => {
  const post = (url: string, allowPrivate: boolean) =>
    send({
      url,
      body: '{}',
      headers: { 'content-type': 'application/json' },
      allowPrivate,
      signal: new AbortController().signal,
    });

  it('refuses loopback without --allow-private-webhooks, by literal address and by resolved name', async () => {
    const receiver = await startReceiver();
    try {
      const port = new URL(receiver.url).port;
      expect(await post(receiver.url, false)).toMatchObject({
        ok: false,
        retryable: false,
        // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- vitest's asymmetric matchers are typed `any`
        error: expect.stringContaining('loopback or private'),
      });
      expect(await post(`http://localhost:${port}/hook`, false)).toMatchObject({
        ok: false,
        retryable: false,
        // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- vitest's asymmetric matchers are typed `any`
        error: expect.stringContaining('localhost resolves to'),
      });
      expect(receiver.requests).toHaveLength(0);
      expect(await post(`http://localhost:${port}/hook`, true)).toMatchObject({ ok: true, status: 204 });
      expect(receiver.requests).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });

  it('never reaches link-local or metadata addresses, whatever the flag', async () => {
    expect(await post('http://169.254.169.254/latest/meta-data', true)).toMatchObject({
      ok: false,
      retryable: false,
      // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- vitest's asymmetric matchers are typed `any`
      error: expect.stringContaining('never allowed'),
    });
    expect(await post('http://[fd00:ec2::254]/', true)).toMatchObject({ ok: false, retryable: false });
  });

  it('does not send at all once cancelled', async () => {
    const receiver = await startReceiver();
    try {
      const controller = new AbortController();
      controller.abort();
      const result = await send({
        url: receiver.url,
        body: '{}',
        headers: {},
        allowPrivate: true,
        signal: controller.signal,
      });
      expect(result).toMatchObject({ ok: false, error: 'cancelled' });
      expect(receiver.requests).toHaveLength(0);
    } finally {
      await receiver.close();
    }
  });
});

describe('retry timing', () => {
  it('waits between half and all of 2 s, 8 s, 32 s, 128 s, 512 s', () => {
    expect([1, 2, 3, 4, 5].map((n) => backoffMs(n, () => 1))).toEqual([2_000, 8_000, 32_000, 128_000, 512_000]);
    expect(backoffMs(1, () => 0)).toBe(1_000);
  });

  it('reads Retry-After as seconds or a date, else retry_after from the body', () => {
    const now = new Date('2026-11-21T10:00:00.000Z');
    expect(retryAfterMs({ 'retry-after': '3' }, '', now)).toBe(3_000);
    expect(retryAfterMs({ 'retry-after': 'Sat, 21 Nov 2026 10:00:30 GMT' }, '', now)).toBe(30_000);
    expect(retryAfterMs({}, '{"retry_after": 1.25}', now)).toBe(1_250);
    expect(retryAfterMs({}, 'not json', now)).toBeNull();
    expect(retryAfterMs({ 'retry-after': '86400' }, '', now)).toBe(15 * 60_000);
  });
});
