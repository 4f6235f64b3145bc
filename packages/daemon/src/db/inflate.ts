import { inflateRawSync } from 'node:zlib';
import { inflate, inflateInit2, inflateSetDictionary } from 'pako/lib/zlib/inflate.js';
import ZStream from 'pako/lib/zlib/zstream.js';
import { StreamReset } from './inflate-reset.js';

/** The window the payload codec deflates with (db/payload.ts); a dictionary fills it before a value. */
const WINDOW_BITS = 13;
// zlib's codes, as pako's port returns them.
const Z_OK = 0;
const Z_STREAM_END = 1;
const Z_BUF_ERROR = -5;
const Z_FINISH = 4;
/**
 * The output buffer, kept from value to value up to KEPT_BUFFER bytes; also the room each call of
 * inflate is given, as node:zlib gives it (its chunk): a back-reference may reach the window plus
 * what the same call wrote, so the same room makes a damaged stream fail where node:zlib's does.
 */
const BUFFER = 16 * 1024;
const KEPT_BUFFER = 1024 * 1024;

/**
 * Raw DEFLATE (RFC 1951) decoding of one stored payload after a preset dictionary, with one
 * stream of pako's zlib port (`pako/lib/zlib`, zlib's own inflate in JavaScript) reset from value
 * to value (docs/decisions.md §25.7). node:zlib sets a native stream up for every value (a handle,
 * its state, its window, a 16 KiB output buffer): for values of 40 to 150 bytes that set-up was
 * most of the work, the passes of `api infer` and `api check` decode several per entry, and the
 * native memory it left held the daemon about 60 MiB higher after a pass. A stream this one does
 * not end cleanly is decoded again by node:zlib, whose text or error is the answer: a damaged row
 * reads as it did. One per codec: decoding is synchronous.
 */
export class RawInflater {
  readonly #stream = new ZStream();
  /** pako's reset without its two new tables a value (§25.11). */
  readonly #reset = new StreamReset(this.#stream);
  #out = Buffer.allocUnsafe(BUFFER);

  constructor() {
    if (inflateInit2(this.#stream, -WINDOW_BITS) !== Z_OK) throw new Error('pako could not set an inflate stream up');
  }

  /** The UTF-8 text `input[offset..]` inflates to after `dictionary`. */
  text(input: Uint8Array, offset: number, dictionary: Uint8Array | undefined): string {
    const decoded = this.#inflate(input, offset, dictionary);
    if (decoded !== undefined) return decoded;
    const options = dictionary ? { windowBits: WINDOW_BITS, dictionary } : { windowBits: WINDOW_BITS };
    return inflateRawSync(input.subarray(offset), options).toString('utf8');
  }

  /** The text, or undefined for a stream that is damaged or cut. */
  #inflate(input: Uint8Array, offset: number, dictionary: Uint8Array | undefined): string | undefined {
    const stream = this.#stream;
    if (!this.#reset.reset()) return undefined;
    if (dictionary && inflateSetDictionary(stream, dictionary) !== Z_OK) return undefined;
    stream.input = input;
    stream.next_in = offset;
    stream.avail_in = input.length - offset;
    let written = 0;
    try {
      for (;;) {
        stream.output = this.#out;
        stream.next_out = written;
        stream.avail_out = BUFFER - (written % BUFFER);
        const status = inflate(stream, Z_FINISH);
        written = stream.next_out;
        if (status === Z_STREAM_END) return this.#out.toString('utf8', 0, written);
        // Out of this call's room: go on, in a larger buffer when this one is full, kept for the
        // next values; anything else is a damaged or cut stream.
        if ((status !== Z_OK && status !== Z_BUF_ERROR) || stream.avail_out !== 0) return undefined;
        if (written < this.#out.length) continue;
        const larger = Buffer.allocUnsafe(this.#out.length * 2);
        this.#out.copy(larger, 0, 0, written);
        this.#out = larger;
      }
    } finally {
      stream.input = null;
      stream.output = null;
      // A large body's buffer is not kept for the daemon's lifetime: the values are mostly small.
      if (this.#out.length > KEPT_BUFFER) this.#out = Buffer.allocUnsafe(BUFFER);
    }
  }
}
