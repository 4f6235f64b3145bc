import { constants, type DeflateRaw, type InflateRaw } from 'node:zlib';

/**
 * The native handle under a node:zlib stream, as lib/zlib.js drives it in its synchronous calls:
 * `writeSync` runs zlib over `input[inOff, inOff + inLen)` into `output[outOff, outOff + outLen)`,
 * leaves the room left in both in the stream's `_writeState`, and calls `onerror` before it
 * returns when zlib failed; `reset` is zlib's `deflateReset` or `inflateReset` followed by the
 * stream's preset dictionary again. Not a public API: checked by `handleOf` before every use
 * (db/deflate.ts, db/inflate.ts; decisions §20.16, §25.12).
 */
export interface ZlibHandle {
  writeSync(
    flush: number,
    input: Uint8Array,
    inOff: number,
    inLen: number,
    output: Uint8Array,
    outOff: number,
    outLen: number,
  ): void;
  reset(): void;
  close(): void;
  onerror: (message: string, errno: number) => void;
}

function isHandle(value: unknown): value is ZlibHandle {
  return (
    typeof value === 'object' &&
    value !== null &&
    'writeSync' in value &&
    typeof value.writeSync === 'function' &&
    'reset' in value &&
    typeof value.reset === 'function' &&
    'close' in value &&
    typeof value.close === 'function'
  );
}

/**
 * A stream's handle, which calls `onError` when zlib fails, and its `_writeState` ([room left in
 * the output, input left]); or undefined (the stream then closed) when this Node's stream is not
 * built as expected.
 */
export function handleOf(
  stream: DeflateRaw | InflateRaw,
  onError: () => void,
): { handle: ZlibHandle; state: Uint32Array } | undefined {
  const handle: unknown = Reflect.get(stream, '_handle');
  const state: unknown = Reflect.get(stream, '_writeState');
  if (!isHandle(handle) || !(state instanceof Uint32Array) || state.length < 2) {
    stream.close();
    return undefined;
  }
  handle.onerror = onError;
  return { handle, state };
}

/**
 * A stream closed as lib/zlib.js's `_close` closes it: its handle at once, then forgotten. Not
 * `stream.close()`, which is a stream's `destroy`: that keeps the stream, its 16 KiB buffer and its
 * dictionary's copy until the next tick, and a synchronous statement that opened a stream a value
 * (more dictionaries in turn than are kept) held hundreds of MiB so.
 */
export function closeStream(stream: DeflateRaw | InflateRaw): void {
  const handle: unknown = Reflect.get(stream, '_handle');
  if (!isHandle(handle)) return void stream.close();
  handle.close();
  Reflect.set(stream, '_handle', null);
}

/** What `writeSync` cannot leave in `_writeState`: a handle that left it so did not write it. */
const UNWRITTEN = 0xffffffff;

/**
 * One `writeSync` of the rest of `input` (from `inOff`) with Z_FINISH into `output[outOff, outOff +
 * room)`. False when the handle did not write the room left in both into its state as lib/zlib.js
 * reads it (another Node): a loop on a state never written would grow its output for ever. The
 * state then holds [room left in the output, input left].
 */
export function finishStep(
  native: { readonly handle: ZlibHandle; readonly state: Uint32Array },
  input: Uint8Array,
  inOff: number,
  output: Uint8Array,
  outOff: number,
  room: number,
): boolean {
  const { handle, state } = native;
  const inLen = input.length - inOff;
  state[0] = UNWRITTEN;
  state[1] = UNWRITTEN;
  handle.writeSync(constants.Z_FINISH, input, inOff, inLen, output, outOff, room);
  return (state[0] ?? UNWRITTEN) <= room && (state[1] ?? UNWRITTEN) <= inLen;
}

/** A stream kept open with what drives it. */
export interface OpenStream<S extends DeflateRaw | InflateRaw> {
  readonly stream: S;
  readonly handle: ZlibHandle;
  /** [room left in the output, input left], written by `writeSync`. */
  readonly state: Uint32Array;
}

/**
 * Streams kept open by dictionary (the same bytes object; null for none), at most `limit`, the
 * least recently used closed first: a dictionary used between every other keeps its stream. A
 * source's dictionary changes every 100,000 values; ingest from several sources, and reads across
 * them (`taplined check`, `copy`), take each source's in turn.
 */
export class KeptStreams<S extends DeflateRaw | InflateRaw> {
  readonly #open = new Map<Uint8Array | null, OpenStream<S>>();
  /** The dictionary used last: most values follow one of the same, which then moves nothing. */
  #last: Uint8Array | null | undefined;

  constructor(private readonly limit: number) {}

  /** The stream of `dictionary`, now the most recently used; undefined when none is kept. */
  get(dictionary: Uint8Array | null): OpenStream<S> | undefined {
    const kept = this.#open.get(dictionary);
    if (kept && dictionary !== this.#last) {
      this.#open.delete(dictionary);
      this.#open.set(dictionary, kept);
    }
    if (kept) this.#last = dictionary;
    return kept;
  }

  /** Keeps `open` for `dictionary`, closing the least recently used stream past the limit. */
  keep(dictionary: Uint8Array | null, open: OpenStream<S>): void {
    if (this.#open.size >= this.limit) {
      const [oldest] = this.#open.keys();
      this.close(oldest ?? null);
    }
    this.#open.set(dictionary, open);
    this.#last = dictionary;
  }

  close(dictionary: Uint8Array | null): void {
    const open = this.#open.get(dictionary);
    if (open) closeStream(open.stream);
    this.#open.delete(dictionary);
  }

  closeAll(): void {
    for (const dictionary of [...this.#open.keys()]) this.close(dictionary);
  }

  get size(): number {
    return this.#open.size;
  }
}
