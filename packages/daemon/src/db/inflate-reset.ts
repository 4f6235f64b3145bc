import { inflateReset } from 'pako/lib/zlib/inflate.js';
import type ZStream from 'pako/lib/zlib/zstream.js';

const Z_OK = 0;

/**
 * The fields of the state that pako's `inflateReset` (with `inflateResetKeep`) sets, but for the
 * length and distance tables: zlib's own reset, field for field.
 */
const RESET_FIELDS = [
  'wsize',
  'whave',
  'wnext',
  'total',
  'mode',
  'last',
  'havedict',
  'flags',
  'dmax',
  'head',
  'hold',
  'bits',
  'sane',
  'back',
] as const;

/**
 * Resets one pako inflate stream from value to value as its `inflateReset` does, keeping the
 * stream's length and distance tables: pako's reset allocates two new ones every time (Int32Arrays
 * of 852 and 592 entries, each off V8's heap) "because we don't have pointers in js", where zlib's
 * C reset points its tables back at the one `codes` array it keeps. Over the payloads of an
 * `api infer` pass (three or four a stored entry) those allocations and the collections their
 * external memory forced were a fifth of the pass (docs/api-contract.md, "Speed"; decisions §25.11).
 *
 * The first reset is pako's own; what it wrote is kept and written again at each further reset.
 * `inflate-reset.test.ts` holds the state after this reset to the state after pako's, field by
 * field, so a pako whose reset sets more (or other) fields fails there, not in a stored payload.
 */
export class StreamReset {
  #after: unknown[] | undefined;
  #tables: { lens: unknown; dists: unknown } | undefined;

  constructor(readonly stream: ZStream) {}

  /** True when the stream is reset; false as pako's reset answers a stream it cannot reset. */
  reset(): boolean {
    const state = this.stream.state;
    if (!state || !this.#after || !this.#tables) return this.#first();
    const stream = this.stream;
    stream.total_in = 0;
    stream.total_out = 0;
    stream.msg = '';
    if (typeof state.wrap === 'number' && state.wrap !== 0) stream.adler = state.wrap & 1;
    for (let i = 0; i < RESET_FIELDS.length; i++) state[RESET_FIELDS[i] ?? ''] = this.#after[i];
    state.lencode = state.lendyn = this.#tables.lens;
    state.distcode = state.distdyn = this.#tables.dists;
    return true;
  }

  #first(): boolean {
    if (inflateReset(this.stream) !== Z_OK) return false;
    const state = this.stream.state;
    if (!state) return true;
    this.#after = RESET_FIELDS.map((field) => state[field]);
    this.#tables = { lens: state.lendyn, dists: state.distdyn };
    return true;
  }
}
