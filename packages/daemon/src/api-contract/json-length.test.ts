import type { JsonValue } from '@tapline/shared';
import { describe, expect, it } from 'vitest';
import { jsonLongerThan } from './json-length.js';

const VALUES: JsonValue[] = [
  null,
  true,
  false,
  0,
  -12.5e-7,
  1e21,
  '',
  'a "quoted" \\ line\n\u0001',
  '\u00e9\u{1f600}',
  [],
  {},
  [1, 'two', null, [false], { three: 3 }],
  { a: 1, 'b"c': [null, { d: 'e' }], 10: 'ten', '': '' },
  { list: Array.from({ length: 50 }, (_, i) => ({ id: i, name: `item ${i}`, tags: ['x', 'y'] })) },
  Array.from({ length: 300 }, () => [[[[]]]]),
];

describe('the JSON length bound of a body (issue 28, examples)', () => {
  it('says "longer" only when JSON.stringify is longer, at every limit around the true length', () => {
    for (const value of VALUES) {
      const length = JSON.stringify(value).length;
      for (const limit of [0, 1, length - 2, length - 1, length, length + 1, 1024])
        if (jsonLongerThan(value, limit)) expect([value, limit, length > limit]).toEqual([value, limit, true]);
      expect(jsonLongerThan(value, length)).toBe(false);
    }
  });

  it('says "longer" without escapes to count (the bound is the unescaped text)', () => {
    expect(jsonLongerThan({ name: 'x'.repeat(2000) }, 1024)).toBe(true);
    expect(jsonLongerThan([1, 2, 3], 6)).toBe(true);
    expect(jsonLongerThan([1, 2, 3], 7)).toBe(false);
    expect(jsonLongerThan({ a: 'b' }, 8)).toBe(true);
    expect(jsonLongerThan({ a: 'b' }, 9)).toBe(false);
  });

  it('stops walking once past the limit: a deeply nested or huge body costs no more than the limit', () => {
    let deep: JsonValue = [];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(jsonLongerThan(deep, 1024)).toBe(true);
    const huge = Array.from({ length: 200_000 }, (_, i) => i);
    expect(jsonLongerThan(huge, 1024)).toBe(true);
  });
});
