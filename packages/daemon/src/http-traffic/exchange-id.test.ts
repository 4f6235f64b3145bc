import { createHash } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { exchangeIdOf } from './exchange-id.js';

describe('exchangeIdOf', () => {
  it("is a UUIDv8 over the SHA-256 of the entry's id and side, as every stored entry's derived ids were", () => {
    // Fixed values: the ids of entries already stored must read back the same after any change here.
    expect(exchangeIdOf('0190a5a4-7b2c-7d3e-8f40-123456789abc', 'request')).toBe(
      '9b85a743-3333-8295-8d43-1fd348b20b6c',
    );
    for (const id of ['0190a5a4-7b2c-7d3e-8f40-123456789abc', 'made-up', 'ünïcödé 🧪', ''])
      for (const side of ['request', 'response'] as const) {
        const derived = exchangeIdOf(id, side);
        expect(derived).toBe(expected(`${id} ${side}`));
        expect(derived).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      }
    expect(exchangeIdOf('x', 'request')).not.toBe(exchangeIdOf('x', 'response'));
  });

  it('is the same on a Node 20 without the one-shot crypto.hash (before 20.12)', async () => {
    vi.resetModules();
    vi.doMock('node:crypto', async (original) => ({
      ...(await original<typeof import('node:crypto')>()),
      hash: undefined,
    }));
    try {
      const { exchangeIdOf: withoutHash } = await import('./exchange-id.js');
      expect(withoutHash('0190a5a4-7b2c-7d3e-8f40-123456789abc', 'request')).toBe(
        '9b85a743-3333-8295-8d43-1fd348b20b6c',
      );
      for (const id of ['made-up', 'ünïcödé 🧪', ''])
        for (const side of ['request', 'response'] as const) expect(withoutHash(id, side)).toBe(exchangeIdOf(id, side));
    } finally {
      vi.doUnmock('node:crypto');
      vi.resetModules();
    }
  });
});

/** The derivation spelled out with a Hash object, as it was first written. */
function expected(text: string): string {
  const hex = createHash('sha256').update(text).digest('hex');
  const variant = ((parseInt(hex[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
