import { createHash } from 'node:crypto';

/**
 * The `requestId` and `responseId` of an entry stored since compact storage: derived from its id
 * rather than stored (two 36-character ids a record). UUIDv8 (RFC 9562's custom version) over a
 * SHA-256 of the id and the side, so they are as unique as random ids, and the same at every read.
 * Entries stored before keep the ids they were given (the columns hold them).
 */
export function exchangeIdOf(entryId: string, side: 'request' | 'response'): string {
  const hex = createHash('sha256').update(`${entryId} ${side}`).digest('hex');
  const variant = ((parseInt(hex[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
