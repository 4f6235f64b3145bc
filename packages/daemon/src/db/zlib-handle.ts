import type { DeflateRaw, InflateRaw } from 'node:zlib';

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
  onerror: (message: string, errno: number) => void;
}

function isHandle(value: unknown): value is ZlibHandle {
  return (
    typeof value === 'object' &&
    value !== null &&
    'writeSync' in value &&
    typeof value.writeSync === 'function' &&
    'reset' in value &&
    typeof value.reset === 'function'
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
