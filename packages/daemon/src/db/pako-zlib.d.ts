// pako's zlib port (`pako/lib/zlib/*`, exported by its package.json) has no type declarations:
// the few of zlib's own functions and fields that db/inflate.ts calls, typed as zlib documents them.
declare module 'pako/lib/zlib/zstream.js' {
  class ZStream {
    input: Uint8Array | null;
    next_in: number;
    avail_in: number;
    output: Uint8Array | null;
    next_out: number;
    avail_out: number;
    msg: string;
    total_in: number;
    total_out: number;
    adler: number;
    /** The inflate state (pako's InflateState): its fields are zlib's `inflate_state`'s. */
    state: { [field: string]: unknown } | null;
  }
  export = ZStream;
}

declare module 'pako/lib/zlib/inflate.js' {
  import type ZStream from 'pako/lib/zlib/zstream.js';

  export function inflateInit2(strm: ZStream, windowBits: number): number;
  export function inflateReset(strm: ZStream): number;
  export function inflateSetDictionary(strm: ZStream, dictionary: Uint8Array): number;
  export function inflate(strm: ZStream, flush: number): number;
}
