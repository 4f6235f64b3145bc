import { createHash } from 'node:crypto';
import { constants, deflateRawSync, inflateRawSync, type ZlibOptions } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RawInflater } from './inflate.js';
import { trainDictionary } from './payload.js';

// Counted, so a test can tell the inflater's own decoding from its fall-back to node:zlib; the
// streams it opens are counted and pass through `opened`, so a test can break one.
const opened = vi.hoisted(() => ({
  count: 0,
  streams: [] as object[],
  edit: undefined as ((stream: object) => void) | undefined,
}));
vi.mock('node:zlib', async (actual) => {
  const zlib = await actual<typeof import('node:zlib')>();
  return {
    ...zlib,
    inflateRawSync: vi.fn(zlib.inflateRawSync),
    createInflateRaw: (options: ZlibOptions) => {
      const stream = zlib.createInflateRaw(options);
      opened.count += 1;
      opened.streams.push(stream);
      opened.edit?.(stream);
      return stream;
    },
  };
});

afterEach(() => {
  opened.edit = undefined;
  opened.streams = [];
});

/** A small seeded generator: the same cases at every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

const WORDS = ['id', 'status', 'createdAt', 'items', 'price', 'name', 'email', 'content-type', 'application/json'];

/** JSON text of a payload-like value: repeated keys, numbers, unicode, and now and then a long run. */
function sampleText(next: () => number, size: number): string {
  const parts: string[] = [];
  let length = 0;
  while (length < size) {
    const r = next();
    const part =
      r < 0.5
        ? `"${WORDS[Math.floor(next() * WORDS.length)] ?? ''}":${Math.floor(next() * 1e6)},`
        : r < 0.7
          ? `"${String.fromCodePoint(...Array.from({ length: 1 + Math.floor(next() * 12) }, () => 32 + Math.floor(next() * 0x2fff)))}",`
          : r < 0.8
            ? 'x'.repeat(Math.floor(next() * 600))
            : Array.from({ length: Math.floor(next() * 40) }, () =>
                String.fromCharCode(33 + Math.floor(next() * 90)),
              ).join('');
    parts.push(part);
    length += part.length;
  }
  return `{${parts.join('')}}`;
}

const STORED: ZlibOptions = { level: 6, windowBits: 13, memLevel: 5 };
const VARIANTS: ZlibOptions[] = [
  STORED,
  { level: 0, windowBits: 13 },
  { level: 1, windowBits: 13 },
  { level: 9, windowBits: 13, memLevel: 9 },
  { level: 6, windowBits: 13, strategy: constants.Z_FIXED },
  { level: 6, windowBits: 13, strategy: constants.Z_HUFFMAN_ONLY },
  { level: 6, windowBits: 13, strategy: constants.Z_RLE },
  { level: 6, windowBits: 9, strategy: constants.Z_FILTERED },
];

const zlibText = (stream: Uint8Array, dictionary: Uint8Array | undefined) =>
  inflateRawSync(stream, dictionary ? { windowBits: 13, dictionary } : { windowBits: 13 }).toString('utf8');

/** What node:zlib makes of a stream: its text, or its error's message. */
function outcome(decode: () => string): { text: string } | { error: string } {
  try {
    return { text: decode() };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

describe('the payload inflater', () => {
  const next = random(28);
  const dictionaries = [
    undefined,
    trainDictionary(Array.from({ length: 40 }, () => sampleText(next, 400))),
    Buffer.from(sampleText(next, 300)),
  ];

  it('reads what node:zlib reads, for every block type, size, strategy and dictionary, with one inflater throughout', () => {
    const inflater = new RawInflater();
    vi.mocked(inflateRawSync).mockClear();
    let cases = 0;
    for (const size of [0, 1, 30, 63, 200, 1500, 9000, 70_000]) {
      for (const options of VARIANTS) {
        for (const dictionary of dictionaries) {
          const text = size === 0 ? '' : sampleText(next, size);
          const stream = deflateRawSync(text, dictionary ? { ...options, dictionary } : options);
          const prefixed = Buffer.concat([Buffer.from([7, 9]), stream]);
          expect(inflater.text(prefixed, 2, dictionary)).toBe(text);
          cases += 1;
        }
      }
    }
    expect(cases).toBe(8 * VARIANTS.length * dictionaries.length);
    // Every one decoded by the inflater itself, none handed to node:zlib.
    expect(inflateRawSync).not.toHaveBeenCalled();
  });

  it('reads a stored block that follows compressed ones (the bit buffer given back to the byte boundary)', () => {
    const inflater = new RawInflater();
    vi.mocked(inflateRawSync).mockClear();
    for (const options of VARIANTS) {
      // Compressible, then noise that deflate stores as it is, then compressible again: block types change mid-stream.
      const noise = Array.from({ length: 40_000 }, () => String.fromCharCode(0x800 + Math.floor(next() * 0xc000))).join(
        '',
      );
      const text = `${sampleText(next, 20_000)}${noise}${'y'.repeat(30_000)}${noise.slice(0, 5000)}`;
      expect(inflater.text(deflateRawSync(text, options), 0, undefined)).toBe(text);
    }
    expect(inflateRawSync).not.toHaveBeenCalled();
  });

  it('keeps a stream for each of its last dictionaries, and reads on after a damaged value', () => {
    // More dictionaries in turn than streams are kept (three values each), a damaged value between
    // good ones of its dictionary: every good value is still read by the inflater itself (a stream
    // that failed is dropped, not reused).
    const inflater = new RawInflater();
    const many = [
      ...dictionaries,
      ...Array.from({ length: 4 }, () => trainDictionary(Array.from({ length: 10 }, () => sampleText(next, 300)))),
    ];
    vi.mocked(inflateRawSync).mockClear();
    let damaged = 0;
    for (let i = 0; i < 200; i++) {
      const dictionary = many[Math.floor(i / 3) % many.length];
      const text = sampleText(next, 50 + Math.floor(next() * 2000));
      const stream = deflateRawSync(text, dictionary ? { ...STORED, dictionary } : STORED);
      if (i % 10 !== 9) {
        expect(inflater.text(stream, 0, dictionary)).toBe(text);
        continue;
      }
      const cut = stream.subarray(0, stream.length >> 1);
      expect(outcome(() => inflater.text(cut, 0, dictionary))).toEqual(outcome(() => zlibText(cut, dictionary)));
      damaged += 1;
    }
    // node:zlib was asked only for the damaged values: once by the inflater, whose answer is its
    // own, and once by the test for the expected outcome.
    expect(inflateRawSync).toHaveBeenCalledTimes(2 * damaged);
  });

  it('answers a damaged or cut stream as node:zlib does: the same text or the same error', () => {
    const inflater = new RawInflater();
    const kinds = { text: 0, error: 0 };
    for (let i = 0; i < 600; i++) {
      const dictionary = dictionaries[i % dictionaries.length];
      const options = VARIANTS[i % VARIANTS.length] ?? STORED;
      const stream = Buffer.from(
        deflateRawSync(
          sampleText(next, 20 + Math.floor(next() * 3000)),
          dictionary ? { ...options, dictionary } : options,
        ),
      );
      const damaged =
        i % 3 === 0
          ? stream.subarray(0, Math.floor(next() * stream.length))
          : (() => {
              const copy = Buffer.from(stream);
              const at = Math.floor(next() * copy.length);
              copy[at] = (copy[at] ?? 0) ^ (1 << Math.floor(next() * 8));
              return copy;
            })();
      const expected = outcome(() => zlibText(damaged, dictionary));
      expect(outcome(() => inflater.text(damaged, 0, dictionary))).toEqual(expected);
      kinds['text' in expected ? 'text' : 'error'] += 1;
    }
    // Both kinds were met, so the comparison said something about each.
    expect(kinds.text).toBeGreaterThan(20);
    expect(kinds.error).toBeGreaterThan(200);
  });

  it('refuses a back-reference beyond its window where node:zlib does, however far into a large value', () => {
    // Written with a 32 KiB window, read with the codec's 8 KiB one: each copy of an earlier run
    // reaches further back than the reader's window. node:zlib gives itself 16 KiB of output at a
    // time, and a reference is good while it reaches no further than the window plus what this
    // turn wrote; the inflater must refuse the same ones, at every depth of the value.
    const inflater = new RawInflater();
    let refused = 0;
    for (const at of [1_000, 17_000, 40_000, 50_000, 70_000, 120_000]) {
      for (const distance of [9_000, 11_000, 20_000, 30_000]) {
        const noise = Array.from({ length: at }, () => String.fromCharCode(97 + Math.floor(next() * 26))).join('');
        const text = noise + noise.slice(at - distance, at - distance + 300);
        const stream = deflateRawSync(text, { level: 9, windowBits: 15 });
        // A digest of the text, so that a difference does not print two large values.
        const digest = (decode: () => string) => () => createHash('sha256').update(decode()).digest('hex');
        const expected = outcome(digest(() => zlibText(stream, undefined)));
        expect(outcome(digest(() => inflater.text(stream, 0, undefined)))).toEqual(expected);
        if ('error' in expected) refused += 1;
      }
    }
    expect(refused).toBeGreaterThan(10);
  });
  it('keeps the streams of the four dictionaries used last, however many come in turn', () => {
    // One dictionary between each of five others, twice over: it is never the least recently
    // used, so its stream is opened once; the others' are opened and closed in turn.
    const many = [
      undefined,
      ...Array.from({ length: 5 }, () => trainDictionary(Array.from({ length: 10 }, () => sampleText(next, 300)))),
    ];
    const inflater = new RawInflater();
    const order = [1, 2, 3, 4, 5, 1, 2, 3, 4, 5].flatMap((other) => [0, other]);
    const opens: number[] = [];
    vi.mocked(inflateRawSync).mockClear();
    for (const which of order) {
      const dictionary = many[which];
      const text = sampleText(next, 200);
      const before = opened.count;
      expect(inflater.text(deflateRawSync(text, dictionary ? { ...STORED, dictionary } : STORED), 0, dictionary)).toBe(
        text,
      );
      if (opened.count > before) opens.push(which);
      expect(inflater.openStreams).toBeLessThanOrEqual(4);
    }
    expect(opens.filter((which) => which === 0)).toHaveLength(1);
    expect(opens).toHaveLength(1 + 5 + 5);
    expect(inflateRawSync).not.toHaveBeenCalled();
    // Each stream closed as lib/zlib.js's _close does, its handle at once, not destroyed (which
    // keeps the stream and its buffers until the next tick), and opened with the smallest chunk.
    type Seen = { _handle: unknown; destroyed: boolean; _outBuffer: Buffer };
    const streams = opened.streams.slice(-opens.length) as Seen[];
    expect(streams.filter((s) => s._handle === null && !s.destroyed)).toHaveLength(opens.length - 4);
    for (const s of streams) expect(s._outBuffer.length).toBe(constants.Z_MIN_CHUNK);
  });

  it('falls back to node:zlib where the stream has no handle to drive, or its handle writes no state', () => {
    const text = sampleText(next, 3000);
    const stream = deflateRawSync(text, STORED);
    for (const edit of [
      (s: object) => Object.assign(s, { _handle: null }),
      // A handle of another shape: it answers, but writes nothing where lib/zlib.js reads.
      (s: object) => Object.assign((s as { _handle: { writeSync: () => void } })._handle, { writeSync: () => {} }),
    ]) {
      opened.edit = edit;
      const inflater = new RawInflater();
      vi.mocked(inflateRawSync).mockClear();
      const before = opened.count;
      for (let i = 0; i < 3; i++) expect(inflater.text(stream, 0, undefined)).toBe(text);
      // Every value by node:zlib, and no stream kept: the inflater gave up its own, for good (one
      // stream tried, not one a value).
      expect(inflateRawSync).toHaveBeenCalledTimes(3);
      expect(inflater.openStreams).toBe(0);
      expect(opened.count - before).toBe(1);
    }
  });

  it('answers an offset outside the value as node:zlib answers it', () => {
    const stream = deflateRawSync('{"a":1}', STORED);
    for (const offset of [stream.length + 3, -1, 0.5])
      expect(outcome(() => new RawInflater().text(stream, offset, undefined))).toEqual(
        outcome(() => zlibText(stream.subarray(offset), undefined)),
      );
  });
});
