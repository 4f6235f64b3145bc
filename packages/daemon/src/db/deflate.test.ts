import { randomBytes } from 'node:crypto';
import * as zlib from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RawDeflater } from './deflate.js';
import { decodePayload, encodePayload, trainDictionary } from './payload.js';
import { RawInflater } from './inflate.js';

// The streams the deflater opens pass through `opened`, so a test can break one.
const opened = vi.hoisted(() => ({ edit: undefined as ((stream: object) => void) | undefined }));
vi.mock('node:zlib', async (actual) => {
  const real = await actual<typeof import('node:zlib')>();
  return {
    ...real,
    deflateRawSync: vi.fn(real.deflateRawSync),
    createDeflateRaw: (options: zlib.ZlibOptions) => {
      const stream = real.createDeflateRaw(options);
      opened.edit?.(stream);
      return stream;
    },
  };
});

afterEach(() => {
  opened.edit = undefined;
  vi.mocked(zlib.deflateRawSync).mockClear();
});

const STORED: zlib.ZlibOptions = { level: 6, windowBits: 13, memLevel: 5 };
const NAMES = ['id', 'status', 'createdAt', 'items', 'price', 'email', 'content-type', 'ünïcødé ✓'];

/** JSON-like texts of 0 to ~40 KB: repeated keys, numbers, now and then incompressible bytes. */
function texts(count: number): Buffer[] {
  return Array.from({ length: count }, (_, i) => {
    const fields = Array.from({ length: (i * 7) % 60 }, (_, k) => `"${NAMES[(i + k) % NAMES.length]}":${i * k}`);
    const noise = i % 9 === 0 ? randomBytes(((i * 997) % 40_000) + 1).toString('latin1') : '';
    return Buffer.from(`{${fields.join(',')}${noise ? `,"n":${JSON.stringify(noise)}` : ''}}`);
  });
}

const sync = (input: Uint8Array, dictionary: Uint8Array | undefined) =>
  zlib.deflateRawSync(input, dictionary ? { ...STORED, dictionary } : STORED);

describe('RawDeflater', () => {
  const values = texts(400);
  const first = trainDictionary(values.slice(0, 30).map(String));
  const second = trainDictionary(values.slice(200, 260).map(String));
  const head = Buffer.from([7]);

  it('writes streams that inflate to each value, across dictionaries and outputs larger than its buffer', () => {
    const deflater = new RawDeflater(STORED);
    let large = 0;
    let same = 0;
    let bytes = 0;
    let syncBytes = 0;
    values.forEach((input, i) => {
      // Runs of one dictionary, then another, then none: the stream is replaced between runs.
      const dictionary = [first, second, undefined][Math.floor(i / 25) % 3];
      const expected = sync(input, dictionary);
      const stored = deflater.deflate(input, dictionary, head);
      expect(stored[0]).toBe(7);
      const stream = stored.subarray(1);
      const options = dictionary ? { windowBits: 13, dictionary } : { windowBits: 13 };
      expect(zlib.inflateRawSync(stream, options).equals(input)).toBe(true);
      // A fresh stream (the first run of each dictionary; four streams are kept, so the later
      // runs reuse theirs) is deflateRawSync's own, byte for byte.
      if (i % 25 === 0 && i < 75) expect(stream).toEqual(expected);
      if (stream.equals(expected)) same += 1;
      if (expected.length > 16 * 1024) large += 1;
      bytes += stream.length;
      syncBytes += expected.length;
    });
    expect(large).toBeGreaterThan(5);
    // After a reset, zlib's window and hash chains still hold the last value where a new stream's
    // are zeroed (Node's zlib zeroes them): now and then zlib picks another match (3 values of 400
    // here, 2 bytes more in 1.2 MB).
    expect(same).toBeGreaterThan(values.length * 0.9);
    expect(Math.abs(bytes - syncBytes)).toBeLessThan(syncBytes * 0.001);
    // Every value went through the reused streams: deflateRawSync ran for the expected values only.
    expect(zlib.deflateRawSync).toHaveBeenCalledTimes(values.length);
  });

  it('falls back to deflateRawSync where the stream has no handle to drive', () => {
    opened.edit = (stream) => Object.assign(stream, { _handle: null });
    const deflater = new RawDeflater(STORED);
    for (const input of values.slice(0, 20))
      expect(deflater.deflate(input, first, head)).toEqual(Buffer.concat([head, sync(input, first)]));
    // The 20 fall-backs and the 20 expected values.
    expect(zlib.deflateRawSync).toHaveBeenCalledTimes(40);
  });

  it("keeps the streams of the four dictionaries used last: several sources' values in turn", () => {
    const others = Array.from({ length: 5 }, (_, i) => trainDictionary(values.slice(i * 10, i * 10 + 10).map(String)));
    const opens: (Uint8Array | undefined)[] = [];
    const deflater = new RawDeflater(STORED);
    for (const dictionary of [0, 1, 2, 3, 4, 0, 1, 2, 3, 4].flatMap((i) => [first, others[i]])) {
      opened.edit = () => opens.push(dictionary);
      const input = values[opens.length % values.length] as Buffer;
      const stored = deflater.deflate(input, dictionary, head);
      expect(zlib.inflateRawSync(stored.subarray(head.length), { windowBits: 13, dictionary })).toEqual(input);
      expect(deflater.openStreams).toBeLessThanOrEqual(4);
    }
    // The dictionary used between every other is opened once; the five others each time but
    // while four are kept.
    expect(opens.filter((d) => d === first)).toHaveLength(1);
    expect(opens).toHaveLength(1 + 10);
  });

  it('falls back to deflateRawSync for good where the handle writes no state where lib/zlib.js reads it', () => {
    opened.edit = (stream) =>
      Object.assign((stream as unknown as { _handle: object })._handle, { writeSync: () => {} });
    let opens = 0;
    const edit = opened.edit;
    opened.edit = (stream) => {
      opens += 1;
      edit(stream);
    };
    const deflater = new RawDeflater(STORED);
    for (const input of values.slice(0, 5))
      expect(deflater.deflate(input, first, head)).toEqual(Buffer.concat([head, sync(input, first)]));
    // The 5 fall-backs and the 5 expected values; one stream tried, not one a value.
    expect(zlib.deflateRawSync).toHaveBeenCalledTimes(10);
    expect(opens).toBe(1);
  });

  it('deflates a value again by deflateRawSync when zlib reports an error, and opens a new stream', () => {
    let broken = 0;
    opened.edit = (stream) => {
      if (broken++ > 0) return;
      const handle = (stream as unknown as { _handle: { writeSync: () => void; onerror: (m: string) => void } })
        ._handle;
      handle.writeSync = () => handle.onerror('stream error');
    };
    const deflater = new RawDeflater(STORED);
    const [a, b] = values.slice(1, 3) as [Buffer, Buffer];
    expect(deflater.deflate(a, first, head)).toEqual(Buffer.concat([head, sync(a, first)]));
    expect(deflater.deflate(b, first, head)).toEqual(Buffer.concat([head, sync(b, first)]));
    expect(broken).toBe(2);
    // The failed value by deflateRawSync, and the two expected values: the second went through the new stream.
    expect(zlib.deflateRawSync).toHaveBeenCalledTimes(3);
  });
});

describe('encodePayload', () => {
  it('stores what decodePayload reads back, as a blob only when it is smaller', () => {
    const values = texts(120).map(String);
    const dictionary = { id: 130, data: trainDictionary(values.slice(0, 20)) };
    const inflater = new RawInflater();
    for (const text of values) {
      const stored = encodePayload(text, dictionary);
      if (typeof stored !== 'string') expect(stored.length).toBeLessThan(Buffer.byteLength(text));
      expect(decodePayload(stored, () => dictionary.data, inflater)).toBe(text);
    }
  });
});
