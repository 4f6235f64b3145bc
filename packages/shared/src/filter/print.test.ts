import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asciiLower, type FilterComparison, type FilterExpr } from './ast.js';
import { parseFilter } from './parse.js';
import { printFilter } from './print.js';

const text = fc.string({
  unit: fc.constantFrom('a', 'Z', '/', ' ', '"', "'", '\\', '(', ')', '=', '~', 'é', '-', '.', '1'),
  maxLength: 12,
});

const comparison: fc.Arbitrary<FilterComparison> = fc.oneof(
  fc.record({
    type: fc.constant('compare' as const),
    field: fc.constant('status' as const),
    op: fc.constantFrom('=', '!=', '>', '>=', '<', '<=' as const),
    value: fc.oneof(fc.integer({ min: 100, max: 599 }), fc.constantFrom('1xx', '2xx', '3xx', '4xx', '5xx')),
  }),
  fc.record({
    type: fc.constant('compare' as const),
    field: fc.constant('latency' as const),
    op: fc.constantFrom('=', '!=', '>', '>=', '<', '<=' as const),
    value: fc.integer({ min: 0, max: 1_000_000 }).map((n) => n / 100),
  }),
  fc.record({
    type: fc.constant('compare' as const),
    field: fc.constant('level' as const),
    op: fc.constantFrom('=', '!=', '>', '>=', '<', '<=' as const),
    value: fc.constantFrom('INFO', 'WARNING', 'FATAL'),
  }),
  fc.record({
    type: fc.constant('compare' as const),
    field: fc.constant('method' as const),
    op: fc.constantFrom('=', '!=' as const),
    value: fc.constantFrom('GET', 'POST', 'PATCH'),
  }),
  fc.record({
    type: fc.constant('compare' as const),
    field: fc.constantFrom('path', 'user', 'body' as const),
    op: fc.constantFrom('=', '!=', '^=', '~' as const),
    value: text,
  }),
  fc.record({
    type: fc.constant('compare' as const),
    field: fc.constant('domain' as const),
    op: fc.constantFrom('=', '^=' as const),
    value: text.map(asciiLower),
  }),
  fc.record({
    type: fc.constant('compare' as const),
    field: fc.constant('header' as const),
    header: fc.stringMatching(/^[a-z0-9-]{1,10}$/),
    op: fc.constantFrom('=', '~' as const),
    value: text,
  }),
);

const expr: fc.Arbitrary<FilterExpr> = fc.letrec<{ e: FilterExpr }>((tie) => ({
  e: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    comparison,
    fc.record({ type: fc.constant('not' as const), operand: tie('e') }),
    fc.record({ type: fc.constant('and' as const), operands: fc.array(tie('e'), { minLength: 2, maxLength: 3 }) }),
    fc.record({ type: fc.constant('or' as const), operands: fc.array(tie('e'), { minLength: 2, maxLength: 3 }) }),
  ),
})).e;

describe('printFilter', () => {
  it('prints what parses back to the same tree', () => {
    fc.assert(
      fc.property(expr, (e) => {
        expect(parseFilter(printFilter(e))).toEqual(e);
      }),
      { numRuns: 500 },
    );
  });

  it('is a fixed point: printing a parsed canonical text gives that text', () => {
    fc.assert(
      fc.property(expr, (e) => {
        const printed = printFilter(e);
        expect(printFilter(parseFilter(printed))).toBe(printed);
      }),
    );
  });

  it('never throws anything but a FilterSyntaxError on arbitrary input', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (input) => {
        try {
          parseFilter(input);
        } catch (error) {
          expect((error as Error).name).toBe('FilterSyntaxError');
          expect((error as { column: number }).column).toBeGreaterThanOrEqual(1);
          expect((error as { column: number }).column).toBeLessThanOrEqual(input.length + 1);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('prints the canonical form of the examples', () => {
    expect(printFilter(parseFilter('domain=Shop.example.com and not path~"health"'))).toBe(
      'domain=shop.example.com and not path~health',
    );
    expect(printFilter(parseFilter('(status=500 or status=502) and body~"time out"'))).toBe(
      '(status=500 or status=502) and body~"time out"',
    );
  });
});
