// The daemon's stored form of a payload value on SQLite (packages/daemon/src/db/payload.ts),
// for the bench's seed and floors, which write rows with better-sqlite3 alone: text under 64 bytes
// as it is, anything else a blob of the dictionary id (LEB128; < 128 here) and a raw deflate stream.
import { deflateRawSync } from 'node:zlib';

/** A UUID as the daemon stores it on SQLite (packages/daemon/src/db/stored-values.ts): its 16 bytes. */
export const storedId = (id) => Buffer.from(id.replaceAll('-', ''), 'hex');

const DEFLATE = { level: 6, windowBits: 13, memLevel: 5 };

/** A dictionary as the daemon trains one: distinct texts, the most recent last, at most 8 KiB (the window). */
export function trainDictionary(texts) {
  const data = Buffer.from([...new Set(texts)].join(''));
  return data.subarray(Math.max(0, data.length - 8 * 1024));
}

export function encodePayload(text, dictionary) {
  if (text === null || text.length < 64) return text;
  const body = deflateRawSync(text, dictionary ? { ...DEFLATE, dictionary: dictionary.data } : DEFLATE);
  return body.length + 1 < Buffer.byteLength(text) ? Buffer.concat([Buffer.from([dictionary?.id ?? 0]), body]) : text;
}
