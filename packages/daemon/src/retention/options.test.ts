import { describe, expect, it } from 'vitest';
import { UsageError } from '../exit-error.js';
import { DEFAULT_POLICY, DEFAULT_RETENTION } from './options.js';
import { parseRetention } from './parse-flags.js';

describe('retention flags', () => {
  it('defaults to 30 days, 2 GB and a look every minute', () => {
    expect(DEFAULT_POLICY).toEqual({ maxAgeMs: 30 * 86_400_000, maxBytes: 2 * 2 ** 30, everyMs: 60_000 });
    expect(parseRetention(DEFAULT_RETENTION)).toEqual(DEFAULT_POLICY);
  });

  it('takes durations, binary sizes and "off"', () => {
    expect(parseRetention({ retention: '12h', maxDbSize: '500MB', pruneEvery: '10s' })).toEqual({
      maxAgeMs: 12 * 3_600_000,
      maxBytes: 500 * 2 ** 20,
      everyMs: 10_000,
    });
    expect(parseRetention({ retention: 'off', maxDbSize: 'OFF', pruneEvery: '1m' })).toMatchObject({
      maxAgeMs: null,
      maxBytes: null,
    });
    expect(parseRetention({ retention: '7d', maxDbSize: '1.5gb', pruneEvery: '1m' }).maxBytes).toBe(1.5 * 2 ** 30);
  });

  it.each([
    [
      { retention: 'forever' },
      '--retention takes a duration of at least 1s such as 30d, 12h or 10m, or "off" (got "forever")',
    ],
    [{ retention: '-3d' }, '--retention'],
    [
      { maxDbSize: '2 potatoes' },
      '--max-db-size takes a size of at least 1MB such as 2GB or 500MB, or "off" (got "2 potatoes")',
    ],
    [{ maxDbSize: '10kb' }, '--max-db-size'],
    [{ pruneEvery: 'off' }, '--prune-every takes a duration of at least 1s such as 30d, 12h or 10m (got "off")'],
  ])('refuses %o with a usage error', (flags, message) => {
    const parse = () => parseRetention({ retention: '30d', maxDbSize: '2GB', pruneEvery: '1m', ...flags });
    expect(parse).toThrow(UsageError);
    expect(parse).toThrow(message);
  });
});
