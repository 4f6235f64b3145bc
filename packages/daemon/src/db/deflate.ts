import { constants, createDeflateRaw, type DeflateRaw, deflateRawSync, type ZlibOptions } from 'node:zlib';
import { finishStep, handleOf, KeptStreams, type OpenStream } from './zlib-handle.js';

/** The output buffer, kept from value to value up to KEPT_BUFFER bytes (as RawInflater's). */
const BUFFER = 16 * 1024;
const KEPT_BUFFER = 1024 * 1024;

/** Streams kept open, one per dictionary (`KeptStreams`): ingest from several sources takes each one's in turn. */
const KEPT_STREAMS = 4;

/**
 * Raw DEFLATE (RFC 1951) of one payload value after a preset dictionary, with one node:zlib
 * stream kept open per dictionary and reset from value to value (docs/decisions.md §20.16).
 * `deflateRawSync` sets a native stream up for every value: a handle, zlib's state (about 60 KiB
 * in five blocks), a copy of the 8 KiB dictionary and a 16 KiB output buffer, the last two freed
 * only when V8 collects the handle; during a large batched ingest that was tens of MB of the main
 * malloc arena at a time, scattered among longer-lived blocks, which glibc then kept
 * (docs/performance.md, "Who churns the main arena"). After zlib's own reset the stream still
 * holds the last value's window where a fresh one is zeroed, so now and then it takes another
 * match than `deflateRawSync` would: the bytes may differ, the text they inflate to does not
 * (deflate.test.ts checks both against node:zlib). Where the handle is not as
 * expected (another Node) or zlib reports an error, the value is deflated by `deflateRawSync`,
 * whose bytes or error are the answer. One per module: deflating is synchronous.
 */
export class RawDeflater {
  readonly #options: ZlibOptions;
  readonly #open = new KeptStreams<DeflateRaw>(KEPT_STREAMS);
  /** The handle did not behave as lib/zlib.js's: `deflateRawSync` from now on. */
  #unusable = false;
  #failed = false;
  #out = Buffer.allocUnsafe(BUFFER);

  constructor(options: ZlibOptions) {
    this.#options = options;
  }

  /** `head`, then the raw deflate stream of `input` after `dictionary`, in one buffer. */
  deflate(input: Uint8Array, dictionary: Uint8Array | undefined, head: Uint8Array): Buffer {
    const open = this.#unusable ? undefined : this.#streamFor(dictionary);
    const written = open ? this.#run(open, dictionary, input) : undefined;
    if (written === undefined) {
      // A chunk the size of the input: node:zlib's 16 KiB default is a malloc per value.
      const chunkSize = Math.max(constants.Z_MIN_CHUNK, Math.min(input.length, BUFFER));
      const options = { ...this.#options, chunkSize, ...(dictionary && { dictionary }) };
      return Buffer.concat([head, deflateRawSync(input, options)]);
    }
    const stored = Buffer.allocUnsafe(head.length + written);
    stored.set(head, 0);
    this.#out.copy(stored, head.length, 0, written);
    // A large body's buffer is not kept for the daemon's lifetime: the values are mostly small.
    if (this.#out.length > KEPT_BUFFER) this.#out = Buffer.allocUnsafe(BUFFER);
    return stored;
  }

  /** The open stream of `dictionary` (the same bytes object), opened if none is kept. */
  #streamFor(dictionary: Uint8Array | undefined): OpenStream<DeflateRaw> | undefined {
    const kept = this.#open.get(dictionary ?? null);
    if (kept) return kept;
    // The smallest chunk: writeSync writes into the deflater's own buffer, never the stream's. The
    // options by Object.assign, not spreads followed by properties (as RawInflater's, decisions §20.15).
    const options = Object.assign(
      {},
      this.#options,
      { chunkSize: constants.Z_MIN_CHUNK },
      dictionary && { dictionary },
    );
    const stream = createDeflateRaw(options);
    const native = handleOf(stream, () => (this.#failed = true));
    this.#unusable = !native;
    const open = native && { stream, ...native };
    if (open) this.#open.keep(dictionary ?? null, open);
    return open;
  }

  /** Deflates `input` into `#out`: the bytes written, or undefined when zlib failed (stream dropped). */
  #run(open: OpenStream<DeflateRaw>, dictionary: Uint8Array | undefined, input: Uint8Array): number | undefined {
    const { handle, state } = open;
    let inOff = 0;
    let written = 0;
    try {
      for (;;) {
        const room = this.#out.length - written;
        const stepped = finishStep(open, input, inOff, this.#out, written, room);
        if (this.#failed) return this.#drop(dictionary);
        if (!stepped) {
          // The handle did not write its state: every stream closed, `deflateRawSync` from now on.
          this.#unusable = true;
          this.#open.closeAll();
          return undefined;
        }
        const [outLeft = 0, inLeft = 0] = state;
        written += room - outLeft;
        inOff = input.length - inLeft;
        // Room left means zlib finished the stream (Z_FINISH); none, that it may have more.
        if (outLeft !== 0) break;
        const larger = Buffer.allocUnsafe(this.#out.length * 2);
        this.#out.copy(larger, 0, 0, written);
        this.#out = larger;
      }
      handle.reset();
      return this.#failed ? this.#drop(dictionary) : written;
    } catch {
      return this.#drop(dictionary);
    }
  }

  /** How many streams are open (for tests: never more than KEPT_STREAMS). */
  get openStreams(): number {
    return this.#open.size;
  }

  #drop(dictionary: Uint8Array | undefined): undefined {
    this.#open.close(dictionary ?? null);
    this.#failed = false;
    return undefined;
  }
}
