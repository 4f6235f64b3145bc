import { constants, createInflateRaw, type InflateRaw, inflateRawSync } from 'node:zlib';
import { finishStep, handleOf, KeptStreams, type OpenStream } from './zlib-handle.js';

/** The window the payload codec deflates with (db/payload.ts); a dictionary fills it before a value. */
const WINDOW_BITS = 13;
/**
 * The output buffer, kept from value to value up to KEPT_BUFFER bytes; also the room each call of
 * inflate is given, as node:zlib gives it (its chunk): a back-reference may reach the window plus
 * what the same call wrote, so the same room makes a damaged stream fail where node:zlib's does.
 */
const BUFFER = 16 * 1024;
const KEPT_BUFFER = 1024 * 1024;
/** Streams kept open, one per dictionary (`KeptStreams`). */
const KEPT_STREAMS = 4;

/**
 * Raw DEFLATE (RFC 1951) decoding of one stored payload after a preset dictionary, with one
 * node:zlib stream kept open per dictionary and reset from value to value (docs/decisions.md
 * §25.12), driven as lib/zlib.js's `inflateRawSync` drives a new one: the same zlib, given the
 * same room at each call. `inflateRawSync` sets a native stream up for every value (a handle, its
 * state, its window, a 16 KiB output buffer): for values of 40 to 150 bytes that set-up was most
 * of the work, the passes of `api infer` and `api check` decode several per entry, and the native
 * memory it left held the daemon about 60 MiB higher after a pass. A value during which zlib
 * reports an error (a damaged or cut stream; the stream is then dropped), or any value when the
 * handle is not as expected (another Node), is decoded again by `inflateRawSync`, whose text or
 * error is the answer: a damaged row reads as it did. One per codec: decoding is synchronous.
 */
export class RawInflater {
  readonly #open = new KeptStreams<InflateRaw>(KEPT_STREAMS);
  /** The handle did not behave as lib/zlib.js's: `inflateRawSync` from now on. */
  #unusable = false;
  #failed = false;
  #out = Buffer.allocUnsafe(BUFFER);

  /** The UTF-8 text `input[offset..]` inflates to after `dictionary`. */
  text(input: Uint8Array, offset: number, dictionary: Uint8Array | undefined): string {
    // An offset outside the value is node:zlib's to answer: a native write given it aborts the process.
    const inside = Number.isInteger(offset) && offset >= 0 && offset <= input.length;
    const open = this.#unusable || !inside ? undefined : this.#streamFor(dictionary ?? null);
    const decoded = open ? this.#run(open, dictionary ?? null, input, offset) : undefined;
    if (decoded !== undefined) return decoded;
    const options = dictionary ? { windowBits: WINDOW_BITS, dictionary } : { windowBits: WINDOW_BITS };
    return inflateRawSync(input.subarray(offset), options).toString('utf8');
  }

  #streamFor(dictionary: Uint8Array | null): OpenStream<InflateRaw> | undefined {
    const kept = this.#open.get(dictionary);
    if (kept) return kept;
    // The smallest chunk: writeSync writes into the inflater's own buffer, never the stream's. The
    // options by Object.assign: built as `{ ...options, dictionary }` (decisions §20.15), a stream
    // a value over six dictionaries in turn left the process at 170 MiB resident instead of 56.
    const options = Object.assign(
      { windowBits: WINDOW_BITS, chunkSize: constants.Z_MIN_CHUNK },
      dictionary && { dictionary },
    );
    const stream = createInflateRaw(options);
    const native = handleOf(stream, () => (this.#failed = true));
    this.#unusable = !native;
    const open = native && { stream, ...native };
    if (open) this.#open.keep(dictionary, open);
    return open;
  }

  /** The text, or undefined when zlib failed (the stream is then dropped). */
  #run(
    open: OpenStream<InflateRaw>,
    dictionary: Uint8Array | null,
    input: Uint8Array,
    offset: number,
  ): string | undefined {
    const { handle, state } = open;
    let inOff = offset;
    let written = 0;
    try {
      for (;;) {
        // The room lib/zlib.js gives a call: what is left of its current 16 KiB chunk.
        const room = BUFFER - (written % BUFFER);
        if (written + room > this.#out.length) {
          const larger = Buffer.allocUnsafe(this.#out.length * 2);
          this.#out.copy(larger, 0, 0, written);
          this.#out = larger;
        }
        const stepped = finishStep(open, input, inOff, this.#out, written, room);
        if (this.#failed) return this.#drop(dictionary);
        if (!stepped) return this.#giveUp();
        const [outLeft = 0, inLeft = 0] = state;
        written += room - outLeft;
        inOff = input.length - inLeft;
        // Room left means zlib ended the stream (Z_FINISH, no error); none, that it may have more.
        if (outLeft !== 0) break;
      }
      handle.reset();
      return this.#failed ? this.#drop(dictionary) : this.#out.toString('utf8', 0, written);
    } catch {
      return this.#drop(dictionary);
    } finally {
      // A large body's buffer is not kept for the daemon's lifetime: the values are mostly small.
      if (this.#out.length > KEPT_BUFFER) this.#out = Buffer.allocUnsafe(BUFFER);
    }
  }

  #drop(dictionary: Uint8Array | null): undefined {
    this.#open.close(dictionary);
    this.#failed = false;
    return undefined;
  }

  /** The handle did not write its state: every stream closed, `inflateRawSync` from now on. */
  #giveUp(): undefined {
    this.#unusable = true;
    this.#failed = false;
    this.#open.closeAll();
    return undefined;
  }

  /** How many streams are open (for tests: never more than KEPT_STREAMS). */
  get openStreams(): number {
    return this.#open.size;
  }
}
