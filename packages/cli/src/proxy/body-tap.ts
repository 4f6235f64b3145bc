/**
 * Keeps a copy of the first `limit` bytes of a body that streams past, and counts all of them.
 * The stream itself is never held back or altered: the tap only sees the chunks on their way.
 */
export interface BodyTap {
  push(chunk: Buffer): void;
  /** The kept bytes (at most `limit`). */
  bytes(): Buffer;
  /** Every byte seen, kept or not. */
  readonly size: number;
  /** More bytes passed than were kept. */
  readonly truncated: boolean;
}

export function createBodyTap(limit: number): BodyTap {
  const chunks: Buffer[] = [];
  let kept = 0;
  let size = 0;
  return {
    push(chunk) {
      size += chunk.length;
      if (kept >= limit) return;
      const part = kept + chunk.length > limit ? chunk.subarray(0, limit - kept) : chunk;
      chunks.push(part);
      kept += part.length;
    },
    bytes: () => (chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, kept)),
    get size() {
      return size;
    },
    get truncated() {
      return size > kept;
    },
  };
}
