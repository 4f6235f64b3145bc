import { describe, expect, it } from 'vitest';
import { BUSY_RETRY_MS, MAX_FAILED_PASS_RETRY_MS, MAX_SLEEP_MS, nextPassInMs, retryPassInMs } from './schedule.js';

describe('when the webhook worker looks again', () => {
  const now = Date.parse('2026-01-01T00:00:00.000Z');

  it('sleeps until the next message is due, at most MAX_SLEEP_MS, and a while when what is due is in flight elsewhere', () => {
    expect(nextPassInMs(null, now, 0)).toBe(MAX_SLEEP_MS);
    expect(nextPassInMs('2026-01-01T00:00:05.000Z', now, 0)).toBe(5_000);
    expect(nextPassInMs('2026-01-01T01:00:00.000Z', now, 0)).toBe(MAX_SLEEP_MS);
    expect(nextPassInMs('2025-12-31T23:59:59.000Z', now, 3)).toBe(0);
    expect(nextPassInMs('2025-12-31T23:59:59.000Z', now, 0)).toBe(BUSY_RETRY_MS);
  });

  it('backs off after failed passes: 1 s, 2 s, 4 s… up to 30 s', () => {
    expect([1, 2, 3, 5, 6, 20].map(retryPassInMs)).toEqual([
      1_000,
      2_000,
      4_000,
      16_000,
      30_000,
      MAX_FAILED_PASS_RETRY_MS,
    ]);
  });
});
