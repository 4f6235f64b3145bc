import { DDSketch } from '@datadog/sketches-js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  binsOf,
  encodeSketch,
  mergeBytes,
  mergeStored,
  mergeStoredTransient,
  newSketch,
  quantileOf,
  SketchSum,
  Tally,
} from './sketch.js';

const QUANTILES = [0, 0.5, 0.9, 0.95, 0.99, 1];

describe('stored sketches', () => {
  it('merged from the compact form or the legacy protobuf, hold what one sketch of every value holds', () => {
    // The reference is one sketch that accepted every value, not the library's `merge`: that loses
    // the count of key 0 (about 1 ms) merged into a sketch whose keys are all below it.
    fc.assert(
      fc.property(
        fc.array(
          fc.array(fc.oneof(fc.constant(0), fc.double({ min: 0.001, max: 600_000, noNaN: true })), { maxLength: 60 }),
          { minLength: 1, maxLength: 8 },
        ),
        (parts) => {
          const every = newSketch();
          const [stored, legacy] = [newSketch(), newSketch()];
          for (const latencies of parts) {
            const part = newSketch();
            for (const latency of latencies) [part, every].forEach((s) => s.accept(latency));
            mergeBytes(stored, encodeSketch(part));
            mergeBytes(legacy, part.toProto());
          }
          for (const merged of [stored, legacy]) {
            expect(encodeSketch(merged)).toEqual(encodeSketch(every));
            for (const q of QUANTILES) expect(quantileOf(merged, q)).toBe(quantileOf(every, q));
          }
        },
      ),
    );
  });

  it("keep a legacy row's latency merged into a row of shorter ones (the library merge lost it)", () => {
    // 0.28 ms alone: the legacy protobuf's bins end at key 0, and the library's merge then grew
    // the row to the other's lowest key only, so the 0.28 ms count went past the row's bins.
    const [short, legacy] = [newSketch(), newSketch()];
    short.accept(0.001);
    legacy.accept(0.28);
    expect(DDSketch.fromProto(legacy.toProto()).store.maxKey).toBe(0);
    const row = newSketch();
    mergeBytes(row, encodeSketch(short));
    mergeBytes(row, legacy.toProto());
    expect(row.count).toBe(2);
    expect(quantileOf(row, 1)).toBeCloseTo(0.28, 2);
  });

  it('tallied, are stored as the bytes of a sketch that accepted the same values, merged and taken out alike', () => {
    const latency = fc.oneof(
      fc.constant(0),
      fc.constant(-0),
      fc.double({ min: 0.001, max: 600_000, noNaN: true }),
      fc.double({ min: -1000, max: 1000, noNaN: true }),
      fc.double({ min: -1e-300, max: 1e-300, noNaN: true }),
    );
    fc.assert(
      fc.property(fc.array(latency, { maxLength: 60 }), fc.array(latency, { maxLength: 60 }), (a, b) => {
        const [library, both] = [newSketch(), newSketch()];
        const [tally, other] = [new Tally(), new Tally()];
        for (const value of a) [library, both].forEach((s) => s.accept(value));
        for (const value of b) both.accept(value);
        a.forEach((value) => tally.accept(value));
        b.forEach((value) => other.accept(value));
        expect(tally.encode()).toEqual(encodeSketch(library));
        // A stored sketch's bins added, then another tally's, then taken out again.
        const merged = new Tally();
        merged.add(binsOf(encodeSketch(library)));
        merged.add(other);
        expect(merged.encode()).toEqual(encodeSketch(both));
        merged.add(other, -1);
        expect(merged.encode()).toEqual(encodeSketch(library));
      }),
    );
  });

  it('taken below none (numbers a row never held), still stored as bytes that read back: those counts left out', () => {
    const held = new Tally();
    [3, 5, 5].forEach((v) => held.accept(v));
    const never = new Tally();
    [0, 0, 7, 5].forEach((v) => never.accept(v));
    held.add(never, -1);
    const expected = newSketch();
    [3, 5].forEach((v) => expected.accept(v));
    expect(held.encode()).toEqual(encodeSketch(expected));
    expect(binsOf(held.encode())).toEqual({ zeros: 0, stores: [binsOf(encodeSketch(expected)).stores[0], []] });
  });

  it('refuse bytes no sketch was written as, and latencies with no bin, with an error and at once', () => {
    const overlong = Uint8Array.from([1, ...Array<number>(150).fill(0xff), 1, 0, 0]);
    const fine = encodeSketch(newSketch());
    expect(() => mergeStoredTransient(overlong, fine)).toThrow(/longer than any it writes/);
    expect(() => mergeStored(fine, overlong)).toThrow(/longer than any it writes/);
    expect(() => binsOf(overlong)).toThrow(/longer than any it writes/);
    expect(() => mergeStored(Uint8Array.from([1, 0, 2, 4]), fine)).toThrow(/ends early/);
    for (const latency of [Infinity, -Infinity]) expect(() => new Tally().accept(latency)).toThrow(/has no bin/);
  });

  it("merged as stored (SQLite's upsert) hold what both held, in the form one sketch of both is stored in", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constant(0), fc.double({ min: 0.001, max: 600_000, noNaN: true })), { maxLength: 40 }),
        fc.array(fc.oneof(fc.constant(0), fc.double({ min: 0.001, max: 600_000, noNaN: true })), { maxLength: 40 }),
        (a, b) => {
          const [left, right, both] = [newSketch(), newSketch(), newSketch()];
          for (const latency of a) [left, both].forEach((s) => s.accept(latency));
          for (const latency of b) [right, both].forEach((s) => s.accept(latency));
          expect(mergeStored(encodeSketch(left), encodeSketch(right))).toEqual(encodeSketch(both));
          expect(mergeStored(null, encodeSketch(right))).toEqual(encodeSketch(right));
          // Bins both hold are added (random latencies seldom share a 1 % bin).
          const twice = newSketch();
          for (const latency of [...a, ...a]) twice.accept(latency);
          expect(mergeStored(encodeSketch(left), encodeSketch(left))).toEqual(encodeSketch(twice));
        },
      ),
    );
  });

  it('merged from their bytes, with negative, zero and far-apart values and hundreds of bins, hold what one sketch of both holds', () => {
    const latency = fc.oneof(
      fc.constant(0),
      fc.double({ min: -1e9, max: 1e9, noNaN: true }),
      fc.double({ min: 0.001, max: 600_000, noNaN: true }),
      fc.integer({ min: 1, max: 5 }),
    );
    fc.assert(
      fc.property(fc.array(latency, { maxLength: 400 }), fc.array(latency, { maxLength: 400 }), (a, b) => {
        const [left, right, both] = [newSketch(), newSketch(), newSketch()];
        for (const value of a) [left, both].forEach((s) => s.accept(value));
        for (const value of b) [right, both].forEach((s) => s.accept(value));
        const expected = encodeSketch(both);
        expect(mergeStored(encodeSketch(left), encodeSketch(right))).toEqual(expected);
        // The form SQLite's function returns, a view it copies: the same bytes.
        expect(Uint8Array.from(mergeStoredTransient(encodeSketch(left), encodeSketch(right)))).toEqual(expected);
      }),
      { numRuns: 200 },
    );
  });

  it('summed by SketchSum hold what one sketch of all of them holds, and answer its percentiles', () => {
    const latency = fc.oneof(fc.constant(0), fc.double({ min: 0.001, max: 600_000, noNaN: true }));
    fc.assert(
      fc.property(fc.array(fc.array(latency, { maxLength: 30 }), { maxLength: 8 }), (groups) => {
        const [sum, all] = [new SketchSum(), newSketch()];
        for (const group of groups) {
          const one = newSketch();
          for (const v of group) [one, all].forEach((s) => s.accept(v));
          sum.add(binsOf(encodeSketch(one)));
        }
        // Shared bins are added (each group is also added twice here, once more below).
        if (groups[0]) {
          for (const v of groups[0]) all.accept(v);
          const again = newSketch();
          for (const v of groups[0]) again.accept(v);
          sum.add(binsOf(encodeSketch(again)));
        }
        const merged = sum.sketch();
        expect(encodeSketch(merged)).toEqual(encodeSketch(all));
        expect(merged.count).toBe(all.count);
        for (const q of [0, 0.5, 0.9, 0.95, 0.99, 1]) expect(quantileOf(merged, q)).toBe(quantileOf(all, q));
      }),
    );
  });

  it('are a few bytes a bin, not the library protobuf of every bin between the lowest and the highest', () => {
    const sketch = newSketch();
    for (const latency of [1, 40, 900]) sketch.accept(latency);
    expect(encodeSketch(sketch).byteLength).toBeLessThan(16);
    expect(sketch.toProto().byteLength).toBeGreaterThan(1000);
  });

  it('merged as stored with a row still in the library protobuf, hold what both held', () => {
    const [old, recent, both] = [new DDSketch({ relativeAccuracy: 0.01 }), newSketch(), newSketch()];
    for (const latency of [0, 3, 5, 8]) [old, both].forEach((s) => s.accept(latency));
    for (const latency of [0, 5, 13, 21]) [recent, both].forEach((s) => s.accept(latency));
    expect(mergeStored(old.toProto(), encodeSketch(recent))).toEqual(encodeSketch(both));
    expect(mergeStored(encodeSketch(recent), old.toProto())).toEqual(encodeSketch(both));
  });

  it('still read rows written as the library protobuf', () => {
    const old = new DDSketch({ relativeAccuracy: 0.01 });
    for (const latency of [3, 5, 8, 13, 21]) old.accept(latency);
    const into = newSketch();
    mergeBytes(into, old.toProto());
    expect(into.count).toBe(5);
    expect(quantileOf(into, 0.5)).toBe(old.getValueAtQuantile(0.5));
  });
});
