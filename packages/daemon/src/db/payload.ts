import { RawDeflater } from './deflate.js';
import type { RawInflater } from './inflate.js';

/**
 * The stored form of a payload value (a header set, a body, the query, as JSON text) on SQLite
 * (docs/storage.md, "Compact storage"): text under RAW_BELOW bytes, or text that would not get
 * smaller, stays as it is (SQL text); anything else is a blob: the id of the preset dictionary it
 * was deflated with (LEB128, 0 = none), then its raw deflate stream (RFC 1951). The type of the
 * SQL value tells the two apart, so no marker byte is needed and tiny values cost nothing.
 */
export type StoredPayload = string | Uint8Array;

/** Shorter JSON texts gain little (deflate's own overhead is ~10 bytes) and are read most (`{}`, `null`). */
export const RAW_BELOW = 64;
/**
 * Deflate's cost is mostly setting up a stream and loading its dictionary, per value: a small
 * window, dictionary and memLevel cost far less CPU than zlib's defaults for a few more bytes
 * (docs/performance.md#storage-format, docs/storage.md). A dictionary fills the window.
 */
const WINDOW_BITS = 13;
export const DICTIONARY_BYTES = 2 ** WINDOW_BITS;
const DEFLATE = { level: 6, windowBits: WINDOW_BITS, memLevel: 5 } as const;
/** Every value is deflated by one stream per dictionary, reset between values (§20.16). */
const deflater = new RawDeflater(DEFLATE);

export interface PayloadDictionary {
  readonly id: number;
  readonly data: Uint8Array;
}

function leb128(n: number): Buffer {
  const bytes: number[] = [];
  let rest = n;
  do {
    const low = rest % 128;
    rest = Math.floor(rest / 128);
    bytes.push(rest > 0 ? low | 0x80 : low);
  } while (rest > 0);
  return Buffer.from(bytes);
}

function readLeb128(value: Uint8Array): { id: number; offset: number } {
  let id = 0;
  let scale = 1;
  for (let offset = 0; offset < value.length && offset < 8; offset++) {
    const byte = value[offset] ?? 0;
    id += (byte & 0x7f) * scale;
    if ((byte & 0x80) === 0) return { id, offset: offset + 1 };
    scale *= 128;
  }
  throw new Error('a stored payload has no dictionary id');
}

export function encodePayload(text: string, dictionary: PayloadDictionary | undefined): StoredPayload {
  if (text.length < RAW_BELOW) return text;
  const input = Buffer.from(text);
  const stored = deflater.deflate(input, dictionary?.data, leb128(dictionary?.id ?? 0));
  return stored.length < input.length ? stored : text;
}

/** The dictionary id a stored blob names (0: deflated without one). */
export const dictionaryIdOf = (value: Uint8Array): number => readLeb128(value).id;

/** `dictionary` is asked only for a blob that names one; `inflater` is kept from value to value. */
export function decodePayload(
  value: StoredPayload,
  dictionary: (id: number) => Uint8Array,
  inflater: RawInflater,
): string {
  if (typeof value === 'string') return value;
  const { id, offset } = readLeb128(value);
  return inflater.text(value, offset, id === 0 ? undefined : dictionary(id));
}

/**
 * A preset dictionary from a source's recent payload texts: each distinct text once, the most
 * recent last (deflate reaches the end of its window most cheaply), at most DICTIONARY_BYTES.
 * Header sets of one app repeat names and most values, and its bodies repeat keys: that is what
 * makes a 300-byte body compress at all.
 */
export function trainDictionary(samples: readonly string[]): Buffer {
  const seen = new Set<string>();
  const parts: Buffer[] = [];
  let bytes = 0;
  for (let i = samples.length - 1; i >= 0 && bytes < DICTIONARY_BYTES; i--) {
    const text = samples[i] ?? '';
    if (seen.has(text)) continue;
    seen.add(text);
    const part = Buffer.from(text);
    parts.push(part);
    bytes += part.length;
  }
  const data = Buffer.concat(parts.reverse());
  return data.subarray(Math.max(0, data.length - DICTIONARY_BYTES));
}
