import { describe, expect, it } from 'vitest';
import { until } from './until.js';

describe('until', () => {
  it('resolves once the condition holds, sync or async, and returns the value read', async () => {
    let n = 0;
    const tick = setInterval(() => (n += 1), 1);
    try {
      await until(() => n >= 3, 'three ticks');
      await until(async () => Promise.resolve(n >= 5), 'five ticks');
      expect(
        await until(
          () => n,
          (v) => v >= 7,
        ),
      ).toBeGreaterThanOrEqual(7);
    } finally {
      clearInterval(tick);
    }
  });

  it('fails after its deadline, naming what it waited for or the last value', async () => {
    await expect(until(() => false, 'the impossible', 30)).rejects.toThrow(
      'timed out after 30 ms waiting for the impossible',
    );
    await expect(
      until(
        () => 'still here',
        (v) => v === 'gone',
        30,
      ),
    ).rejects.toThrow('condition not met within 30 ms; last value:\nstill here');
  });
});
