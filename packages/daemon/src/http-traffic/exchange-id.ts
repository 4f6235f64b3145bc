import * as crypto from 'node:crypto';

/**
 * One SHA-256 as hex. Node's one-shot `crypto.hash` (20.12 and later) makes no Hash object: a
 * batch of 1,000 derives 2,000 ids, and the objects and their shapes showed in batch profiles
 * (decisions §20.25). The same digest as `createHash` where it is missing.
 */
const sha256Hex: (text: string) => string =
  typeof crypto.hash === 'function'
    ? (text) => crypto.hash('sha256', text, 'hex')
    : (text) => crypto.createHash('sha256').update(text).digest('hex');

/**
 * The `requestId` and `responseId` of an entry stored since compact storage: derived from its id
 * rather than stored (two 36-character ids a record). UUIDv8 (RFC 9562's custom version) over a
 * SHA-256 of the id and the side, so they are as unique as random ids, and the same at every read.
 * Entries stored before keep the ids they were given (the columns hold them).
 */
export function exchangeIdOf(entryId: string, side: 'request' | 'response'): string {
  const hex = sha256Hex(`${entryId} ${side}`);
  const variant = ((parseInt(hex[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
