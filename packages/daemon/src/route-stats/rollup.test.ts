import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keyOf, SPANS, startOf, type StatInput, statusClassOf, totalsOf } from './rollup.js';
import { encodeSketch, newSketch } from './sketch.js';

const id = (n: number) => `01a1fc8d-93a2-767e-92f3-${n.toString(16).padStart(12, '0')}`;

const input = fc.record({
  sourceId: fc.integer({ min: 0, max: 2 }).map(id),
  routeId: fc.integer({ min: 10, max: 14 }).map(id),
  method: fc.constantFrom('GET', 'POST', 'DELETE'),
  domainId: fc.integer({ min: 20, max: 21 }).map(id),
  // Within three days, so that minutes, hours and days are shared and crossed.
  createdAt: fc
    .integer({ min: 0, max: 3 * 86_400_000 })
    .map((ms) => new Date(Date.UTC(2026, 10, 26) + ms).toISOString()),
  status: fc.constantFrom(101, 200, 204, 302, 404, 500, 599),
  elapsedTime: fc.oneof(fc.constant(0), fc.double({ min: 0.001, max: 60_000, noNaN: true })),
  requestBytes: fc.nat(10_000),
  responseBytes: fc.nat(100_000),
}) as fc.Arbitrary<StatInput>;

/** What a row of each span holds, summed entry by entry into the library's own sketches. */
function reference(inputs: readonly StatInput[]) {
  const rows = new Map<
    string,
    { count: number; max: number; sum: number; req: number; res: number; sketch: ReturnType<typeof newSketch> }
  >();
  for (const i of inputs)
    for (const span of SPANS) {
      const key = keyOf({ ...i, span, start: startOf(i.createdAt, span), statusClass: statusClassOf(i.status) });
      const row = rows.get(key) ?? { count: 0, max: 0, sum: 0, req: 0, res: 0, sketch: newSketch() };
      rows.set(key, row);
      row.count += 1;
      row.max = Math.max(row.max, i.elapsedTime);
      row.sum += i.elapsedTime;
      row.req += i.requestBytes;
      row.res += i.responseBytes;
      row.sketch.accept(i.elapsedTime);
    }
  return [...rows.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, r]) => ({
      key,
      count: r.count,
      max: r.max,
      req: r.req,
      res: r.res,
      sketch: encodeSketch(r.sketch),
      sum: r.sum,
    }));
}

describe('totalsOf', () => {
  it("sums every entry into its minute, hour and day rows, in keyOf's order, as the library's sketches sum them", () => {
    fc.assert(
      fc.property(fc.array(input, { maxLength: 300 }), (inputs) => {
        const expected = reference(inputs);
        const totals = totalsOf(inputs);
        expect(totals.map((t) => keyOf(t))).toEqual(expected.map((r) => r.key));
        totals.forEach((t, i) => {
          const r = expected[i];
          expect({ count: t.count, max: t.latencyMax, req: t.requestBytes, res: t.responseBytes }).toEqual({
            count: r?.count,
            max: r?.max,
            req: r?.req,
            res: r?.res,
          });
          // Summed minute by minute, not entry by entry: the same up to the floats' rounding.
          expect(t.latencySum).toBeCloseTo(r?.sum ?? NaN, 6);
          expect(t.sketch.encode()).toEqual(r?.sketch);
        });
      }),
      { numRuns: 200 },
    );
  });
});
