import { deflateRawSync } from 'node:zlib';
import { inflate, inflateInit2, inflateReset, inflateSetDictionary } from 'pako/lib/zlib/inflate.js';
import ZStream from 'pako/lib/zlib/zstream.js';
import { describe, expect, it } from 'vitest';
import { StreamReset } from './inflate-reset.js';
import { trainDictionary } from './payload.js';

const TABLES = new Set(['lencode', 'lendyn', 'distcode', 'distdyn']);
/**
 * Scratch arrays, written before they are read: pako builds its fixed tables once per process in
 * whichever stream meets a fixed block first, leaving that stream's `lens` and `work` different.
 */
const SCRATCH = new Set(['lens', 'work']);

const opened = () => {
  const stream = new ZStream();
  expect(inflateInit2(stream, -13)).toBe(0);
  return stream;
};

/** A stream's state and counters, its two tables and scratch arrays by size only (the kept tables hold the last value's codes). */
function stateOf(stream: ZStream): Record<string, unknown> {
  const { state } = stream;
  if (!state) throw new Error('no state');
  const fields: Record<string, unknown> = {
    total_in: stream.total_in,
    total_out: stream.total_out,
    msg: stream.msg,
    adler: stream.adler,
  };
  for (const [key, value] of Object.entries(state)) {
    if (key === 'strm') fields[key] = value === stream;
    else if (TABLES.has(key)) fields[key] = value instanceof Int32Array ? `Int32Array(${value.length})` : value;
    else if (SCRATCH.has(key)) fields[key] = value instanceof Uint16Array ? `Uint16Array(${value.length})` : value;
    else fields[key] = value instanceof Uint8Array || value instanceof Uint16Array ? [...value] : value;
  }
  return fields;
}

/** Inflates one value after a reset: zlib's status and the text. */
function inflated(stream: ZStream, value: Uint8Array, dictionary: Uint8Array | undefined) {
  if (dictionary) expect(inflateSetDictionary(stream, dictionary)).toBe(0);
  const out = Buffer.alloc(64 * 1024);
  Object.assign(stream, {
    input: value,
    next_in: 0,
    avail_in: value.length,
    output: out,
    next_out: 0,
    avail_out: out.length,
  });
  const status = inflate(stream, 4);
  return { status, text: out.toString('utf8', 0, stream.next_out) };
}

describe('the inflate stream reset that keeps its tables (decisions §25.11)', () => {
  const texts = Array.from({ length: 60 }, (_, i) =>
    JSON.stringify({
      id: i,
      name: `item ${i}`.repeat(1 + (i % 7)),
      tags: Array.from({ length: i % 11 }, (_, j) => `t${i * j}`),
    }),
  );
  const dictionary = trainDictionary(texts.slice(0, 20));
  const values = texts.flatMap((text, i) => {
    const withDictionary = i % 2 === 0 ? dictionary : undefined;
    const level = [0, 1, 6, 9][i % 4];
    const stored = Buffer.from(
      deflateRawSync(text, { windowBits: 13, level, ...(withDictionary ? { dictionary } : {}) }),
    );
    // Every fifth value damaged (cut or a bit flipped), so a reset follows failed streams too.
    const damaged =
      i % 5 === 0
        ? stored.subarray(0, stored.length >> 1)
        : i % 5 === 1
          ? Buffer.from(stored.map((b, at) => (at === 2 ? b ^ 4 : b)))
          : stored;
    return [{ value: damaged, dictionary: withDictionary }];
  });

  it("leaves the state pako's inflateReset leaves, field for field, and the same texts and statuses follow", () => {
    const ours = opened();
    const pakos = opened();
    const reset = new StreamReset(ours);
    for (const { value, dictionary } of values) {
      expect(reset.reset()).toBe(true);
      expect(inflateReset(pakos)).toBe(0);
      expect(stateOf(ours)).toEqual(stateOf(pakos));
      expect(inflated(ours, value, dictionary)).toEqual(inflated(pakos, value, dictionary));
    }
  });

  it('allocates its two tables once, at the first reset', () => {
    const stream = opened();
    const reset = new StreamReset(stream);
    reset.reset();
    const first = { lens: stream.state?.lendyn, dists: stream.state?.distdyn };
    for (const { value, dictionary } of values.slice(0, 10)) {
      inflated(stream, value, dictionary);
      reset.reset();
      expect(stream.state?.lendyn).toBe(first.lens);
      expect(stream.state?.lencode).toBe(first.lens);
      expect(stream.state?.distdyn).toBe(first.dists);
      expect(stream.state?.distcode).toBe(first.dists);
    }
  });
});
