import { contract } from '@tapline/shared';
import { describe, expect, it } from 'vitest';
import { REALISTIC_SIZE, realisticRecord } from './record.js';

const SEEDS = Array.from({ length: 2000 }, (_, i) => i);

describe('realisticRecord', () => {
  it('posts between 1.4 and 1.7 KB for every seed, spread over that range', () => {
    const sizes = SEEDS.map((seed) => Buffer.byteLength(JSON.stringify(realisticRecord(seed))));
    for (const size of sizes) {
      expect(size).toBeGreaterThanOrEqual(REALISTIC_SIZE.min);
      expect(size).toBeLessThanOrEqual(REALISTIC_SIZE.max);
    }
    expect(Math.min(...sizes)).toBeLessThan(1450);
    expect(Math.max(...sizes)).toBeGreaterThan(1650);
  });

  it('gives the same record for the same seed and different ones for different seeds', () => {
    expect(JSON.stringify(realisticRecord(7))).toBe(JSON.stringify(realisticRecord(7)));
    expect(new Set(SEEDS.slice(0, 100).map((seed) => JSON.stringify(realisticRecord(seed)))).size).toBe(100);
  });

  it('is a valid compose body for the source it names', () => {
    const source = '0190a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b';
    for (const seed of SEEDS.slice(0, 300)) {
      const parsed = contract.composeRecord.body.safeParse(realisticRecord(seed, source));
      expect(parsed.error?.issues).toBeUndefined();
      expect(parsed.data?.trafficSourceId).toBe(source);
    }
  });

  it('mixes clients, methods, statuses and secrets the way traffic does', () => {
    const records = SEEDS.map((seed) => realisticRecord(seed));
    const methods = new Set(records.map((r) => r.method));
    expect(methods).toEqual(new Set(['GET', 'POST', 'PATCH', 'DELETE']));
    expect(records.some((r) => r.status >= 500) && records.some((r) => r.status >= 400 && r.status < 500)).toBe(true);
    const agents = new Set(records.map((r) => String(r.requestHeaders['user-agent']).split('/')[0]));
    expect(agents).toContain('curl');
    expect(agents).toContain('Mozilla');
    expect(records.some((r) => Array.isArray(r.responseHeaders['set-cookie']))).toBe(true);
    expect(
      records.some((r) => r.requestBody !== null && typeof r.requestBody === 'object' && 'password' in r.requestBody),
    ).toBe(true);
    expect(
      records.every(
        (r) => typeof r.requestHeaders.authorization === 'string' || typeof r.requestHeaders.cookie === 'string',
      ),
    ).toBe(true);
  });
});
