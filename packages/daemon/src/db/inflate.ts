/**
 * Raw DEFLATE (RFC 1951) decoding of one stored payload after a preset dictionary, in
 * JavaScript. node:zlib sets a stream up for every value (a native handle, its state, its window,
 * a 16 KiB output buffer): for values of 40 to 150 bytes that was most of the work, and the
 * passes of `api infer` and `api check` decode several per entry (docs/performance.md#storage-format).
 * Here the dictionary stays at the head of one output buffer and the value is written after it, so
 * a back-reference into the dictionary is a copy within that buffer, and nothing is allocated but
 * the text. A stream this decoder finds wrong is decoded again by node:zlib, whose answer (or
 * error) is the reference.
 */
import { inflateRawSync } from 'node:zlib';

const MAX_BITS = 15;
/** Codes up to this many bits are looked up in one step; longer ones are decoded bit by bit. */
const FAST_BITS = 9;
/** The window the payloads are deflated with (payload.ts): a distance past it is zlib's "too far back". */
const WINDOW_BITS = 13;
const WINDOW = 2 ** WINDOW_BITS;

const LENGTH_BASE = [
  3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258,
];
const LENGTH_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
const DISTANCE_BASE = [
  1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145,
  8193, 12289, 16385, 24577,
];
const DISTANCE_EXTRA = [
  0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13,
];
const CODE_LENGTH_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

class InvalidDeflate extends Error {}

/** FAST_BITS-bit values with their bits in reverse order: a code is written most significant bit first. */
const REVERSED = new Uint16Array(1 << FAST_BITS).map((_, v) => {
  let r = 0;
  for (let b = 0; b < FAST_BITS; b++) r |= ((v >> b) & 1) << (FAST_BITS - 1 - b);
  return r;
});

const EMPTY = new Uint8Array(0);

/** A canonical Huffman code: `fast[reversed low bits]` is `symbol << 4 | length`, 0 for a longer code. */
class Huffman {
  readonly count = new Uint16Array(MAX_BITS + 1);
  readonly symbol: Uint16Array;
  readonly fast = new Uint32Array(1 << FAST_BITS);
  readonly #offset = new Uint16Array(MAX_BITS + 2);

  constructor(size: number) {
    this.symbol = new Uint16Array(size);
  }

  /** Builds the code of `lengths[0..n)`; rejects the sets zlib's inflate_table rejects. */
  build(lengths: Uint8Array, n: number, codeLengths = false): void {
    const { count, symbol, fast } = this;
    const offset = this.#offset;
    count.fill(0);
    for (let s = 0; s < n; s++) count[lengths[s] ?? 0]! += 1;
    count[0] = 0;
    let max = MAX_BITS;
    while (max > 0 && count[max] === 0) max -= 1;
    let left = 1;
    for (let len = 1; len <= MAX_BITS; len++) {
      left = left * 2 - count[len]!;
      if (left < 0) throw new InvalidDeflate('over-subscribed code');
    }
    // An incomplete code is valid only as one code of one bit (a block with a single distance).
    if (left > 0 && max !== 0 && (codeLengths || max !== 1)) throw new InvalidDeflate('incomplete code');
    offset[1] = 0;
    for (let len = 1; len <= MAX_BITS; len++) offset[len + 1] = offset[len]! + count[len]!;
    for (let s = 0; s < n; s++) {
      const len = lengths[s] ?? 0;
      if (len !== 0) symbol[offset[len]!++] = s;
    }
    fast.fill(0);
    let code = 0;
    let index = 0;
    for (let len = 1; len <= FAST_BITS; len++) {
      for (let i = 0; i < count[len]!; i++, code++, index++) {
        const reversed = REVERSED[code << (FAST_BITS - len)]!;
        const entry = (symbol[index]! << 4) | len;
        for (let fill = reversed; fill < 1 << FAST_BITS; fill += 1 << len) fast[fill] = entry;
      }
      code <<= 1;
    }
  }
}

const FIXED_LENGTHS = new Uint8Array(288).map((_, s) => (s < 144 ? 8 : s < 256 ? 9 : s < 280 ? 7 : 8));
const fixedLiterals = new Huffman(288);
fixedLiterals.build(FIXED_LENGTHS, 288);
// 32 codes of 5 bits, as zlib builds it: the last two stand for no distance and are rejected when met.
const fixedDistances = new Huffman(32);
fixedDistances.build(new Uint8Array(32).fill(5), 32);

/** Decodes raw deflate streams, reusing its buffers from value to value (one per codec: decoding is synchronous). */
export class RawInflater {
  #dictionary: Uint8Array | undefined;
  /** Where a value's text begins in #out: after the dictionary. */
  #start = 0;
  #out = Buffer.allocUnsafe(16384);
  #input: Uint8Array = EMPTY;
  #at = 0;
  #bits = 0;
  #bitCount = 0;
  readonly #literals = new Huffman(288);
  readonly #distances = new Huffman(30);
  readonly #codeLengths = new Huffman(19);
  readonly #lengths = new Uint8Array(288 + 32);

  /** The UTF-8 text `input[offset..]` inflates to after `dictionary` (the one of the last value is still in place). */
  text(input: Uint8Array, offset: number, dictionary: Uint8Array | undefined): string {
    if (dictionary !== this.#dictionary) {
      this.#dictionary = dictionary;
      this.#start = dictionary?.length ?? 0;
      this.#room(0, this.#start + 4096);
      if (dictionary) this.#out.set(dictionary, 0);
    }
    try {
      return this.#inflate(input, offset);
    } catch (error) {
      if (!(error instanceof InvalidDeflate)) throw error;
    } finally {
      this.#input = EMPTY;
    }
    const options = dictionary ? { windowBits: WINDOW_BITS, dictionary } : { windowBits: WINDOW_BITS };
    return inflateRawSync(input.subarray(offset), options).toString('utf8');
  }

  #inflate(input: Uint8Array, offset: number): string {
    this.#input = input;
    this.#at = offset;
    this.#bits = 0;
    this.#bitCount = 0;
    let pos = this.#start;
    for (let last = 0; last === 0;) {
      last = this.#take(1);
      const type = this.#take(2);
      if (type === 0) pos = this.#stored(pos);
      else if (type === 1) pos = this.#codes(pos, fixedLiterals, fixedDistances);
      else if (type === 2) {
        this.#dynamic();
        pos = this.#codes(pos, this.#literals, this.#distances);
      } else throw new InvalidDeflate('invalid block type');
    }
    return this.#out.toString('utf8', this.#start, pos);
  }

  #need(n: number): void {
    while (this.#bitCount < n) {
      if (this.#at >= this.#input.length) throw new InvalidDeflate('unexpected end of input');
      this.#bits |= this.#input[this.#at++]! << this.#bitCount;
      this.#bitCount += 8;
    }
  }

  #take(n: number): number {
    this.#need(n);
    const value = this.#bits & ((1 << n) - 1);
    this.#bits >>>= n;
    this.#bitCount -= n;
    return value;
  }

  /** The next symbol of `code`: one table look-up when its code is short, else canonical decoding bit by bit. */
  #decode(code: Huffman): number {
    // Up to FAST_BITS bits from what is left, without failing at the end of the input.
    while (this.#bitCount < FAST_BITS && this.#at < this.#input.length) {
      this.#bits |= this.#input[this.#at++]! << this.#bitCount;
      this.#bitCount += 8;
    }
    const entry = code.fast[this.#bits & ((1 << FAST_BITS) - 1)]!;
    const len = entry & 15;
    if (len !== 0 && len <= this.#bitCount) {
      this.#bits >>>= len;
      this.#bitCount -= len;
      return entry >> 4;
    }
    let value = 0;
    let first = 0;
    let index = 0;
    for (let l = 1; l <= MAX_BITS; l++) {
      value |= this.#take(1);
      const count = code.count[l]!;
      if (value - first < count) return code.symbol[index + value - first]!;
      index += count;
      first = (first + count) << 1;
      value <<= 1;
    }
    throw new InvalidDeflate('invalid code');
  }

  #room(pos: number, n: number): void {
    if (pos + n <= this.#out.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.#out.length * 2, pos + n));
    this.#out.copy(bigger, 0, 0, pos);
    this.#out = bigger;
  }

  #stored(pos: number): number {
    // To the byte boundary: whole bytes read ahead into the bit buffer are given back.
    this.#at -= this.#bitCount >> 3;
    this.#bits = 0;
    this.#bitCount = 0;
    const input = this.#input;
    if (this.#at + 4 > input.length) throw new InvalidDeflate('unexpected end of input');
    const length = input[this.#at]! | (input[this.#at + 1]! << 8);
    const check = input[this.#at + 2]! | (input[this.#at + 3]! << 8);
    if (length !== (~check & 0xffff)) throw new InvalidDeflate('invalid stored block lengths');
    this.#at += 4;
    if (this.#at + length > input.length) throw new InvalidDeflate('unexpected end of input');
    this.#room(pos, length);
    this.#out.set(input.subarray(this.#at, this.#at + length), pos);
    this.#at += length;
    return pos + length;
  }

  #dynamic(): void {
    const literals = this.#take(5) + 257;
    const distances = this.#take(5) + 1;
    const codeLengthCount = this.#take(4) + 4;
    if (literals > 286 || distances > 30) throw new InvalidDeflate('too many length or distance symbols');
    const lengths = this.#lengths;
    lengths.fill(0, 0, 19);
    for (let i = 0; i < codeLengthCount; i++) lengths[CODE_LENGTH_ORDER[i]!] = this.#take(3);
    this.#codeLengths.build(lengths, 19, true);
    const total = literals + distances;
    for (let i = 0; i < total;) {
      const symbol = this.#decode(this.#codeLengths);
      if (symbol < 16) {
        lengths[i++] = symbol;
        continue;
      }
      let repeat: number;
      let value = 0;
      if (symbol === 16) {
        if (i === 0) throw new InvalidDeflate('invalid bit length repeat');
        value = lengths[i - 1]!;
        repeat = 3 + this.#take(2);
      } else repeat = symbol === 17 ? 3 + this.#take(3) : 11 + this.#take(7);
      if (i + repeat > total) throw new InvalidDeflate('invalid bit length repeat');
      lengths.fill(value, i, i + repeat);
      i += repeat;
    }
    if (lengths[256] === 0) throw new InvalidDeflate('invalid code -- missing end-of-block');
    this.#literals.build(lengths, literals);
    this.#distances.build(lengths.subarray(literals, total), distances);
  }

  #codes(start: number, literals: Huffman, distances: Huffman): number {
    let pos = start;
    for (;;) {
      const symbol = this.#decode(literals);
      if (symbol < 256) {
        this.#room(pos, 1);
        this.#out[pos++] = symbol;
        continue;
      }
      if (symbol === 256) return pos;
      const lengthSymbol = symbol - 257;
      if (lengthSymbol >= 29) throw new InvalidDeflate('invalid literal/length code');
      const length = LENGTH_BASE[lengthSymbol]! + this.#take(LENGTH_EXTRA[lengthSymbol]!);
      const distanceSymbol = this.#decode(distances);
      if (distanceSymbol >= 30) throw new InvalidDeflate('invalid distance code');
      const distance = DISTANCE_BASE[distanceSymbol]! + this.#take(DISTANCE_EXTRA[distanceSymbol]!);
      if (distance > WINDOW || distance > pos) throw new InvalidDeflate('invalid distance too far back');
      this.#room(pos, length);
      const out = this.#out;
      // Byte by byte: a copy may overlap what it writes (a distance shorter than the length repeats).
      for (let from = pos - distance, end = pos + length; pos < end;) out[pos++] = out[from++]!;
    }
  }
}
