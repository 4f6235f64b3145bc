import { constants, deflateRawSync } from 'node:zlib';
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
/**
 * node:zlib writes a sync call's output into chunks of `chunkSize` bytes (16 KiB unless told) and
 * returns a slice of the first: a 16 KiB buffer malloc'd per value and held until V8 collects the
 * slice, tens of MB of the main arena during a large batch, which glibc then keeps
 * (docs/performance.md, "Who churns the main arena"). A chunk the size of the text holds any
 * output worth storing, and under 4 KiB it comes from Buffer's shared pool, not from malloc.
 */
const OUTPUT_CHUNK = 16 * 1024;

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
  const bytes = Buffer.byteLength(text);
  const head = leb128(dictionary?.id ?? 0);
  const chunkSize = Math.max(constants.Z_MIN_CHUNK, Math.min(bytes, OUTPUT_CHUNK));
  const body = deflateRawSync(
    text,
    dictionary ? { ...DEFLATE, chunkSize, dictionary: dictionary.data } : { ...DEFLATE, chunkSize },
  );
  return head.length + body.length < bytes ? Buffer.concat([head, body]) : text;
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
