import { DDSketch } from '@datadog/sketches-js';

/**
 * Latency sketches (docs/statistics.md): DDSketch with 1 % relative accuracy, so that any
 * percentile read from it is within 1 % of the exact one, and sketches of minutes merge into a
 * window exactly (a merge adds bin counts). Never quantile code of our own.
 */
export const RELATIVE_ACCURACY = 0.01;

export type Sketch = DDSketch;

export const newSketch = (): Sketch => new DDSketch({ relativeAccuracy: RELATIVE_ACCURACY });

/**
 * The stored form (docs/decisions.md §21.5): the library's protobuf writes every bin between the
 * lowest and the highest as an 8-byte double (2 KB for a sketch of three latencies) and decodes
 * at about 300 µs, which made a day's read take seconds. Stored instead: a version byte, then
 * varints: the zero count, and per store (positive, negative) its non-empty bins as (key delta,
 * count). Only the bins are written; the mapping is the one `newSketch` makes. Counts are whole
 * numbers (every weight is 1), which `encodeSketch` checks.
 */
const COMPACT = 0x01;

type Store = Sketch['store'];

/**
 * What a varint may hold: a whole number from 0 to 2^53 - 1. Anything else (a count taken below
 * zero, a non-finite key) would be written as bytes that no longer read back, wedging the row.
 */
function varintValue(value: number): number {
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`a sketch cannot store ${value}`);
  return value;
}

/** A varint holds at most 2^53 - 1 (`varintValue`): 8 bytes of 7 bits. */
const MAX_VARINT_BYTES = 8;

function writeVarint(out: number[], value: number): void {
  let v = varintValue(value);
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
}

const zigzag = (v: number): number => (v < 0 ? -2 * v - 1 : 2 * v);
const unzigzag = (v: number): number => (v % 2 === 1 ? -(v + 1) / 2 : v / 2);

/** Bins as `[key, count, …]`, keys rising: their number, then each key's delta (zigzag) and count. */
function writeBins(out: number[], flat: readonly number[]): void {
  writeVarint(out, flat.length / 2);
  let previous = 0;
  for (let i = 0; i < flat.length; i += 2) {
    const key = flat[i] ?? 0;
    writeVarint(out, zigzag(key - previous));
    writeVarint(out, flat[i + 1] ?? 0);
    previous = key;
  }
}

/** A sketch's non-empty bins, keys rising (a store of the library's). */
function flatOf(store: Store): number[] {
  const flat: number[] = [];
  if (store.count > 0)
    for (let key = store.minKey; key <= store.maxKey; key++) {
      const count = store.bins[key - store.offset] ?? 0;
      if (count !== 0) flat.push(key, count);
    }
  return flat;
}

function writeStore(out: number[], store: Store): void {
  const flat = flatOf(store);
  for (let i = 1; i < flat.length; i += 2)
    if (!Number.isInteger(flat[i])) throw new Error(`a sketch bin holds ${flat[i]}: only whole counts are stored`);
  writeBins(out, flat);
}

export function encodeSketch(sketch: Sketch): Uint8Array {
  const out: number[] = [COMPACT];
  writeVarint(out, sketch.zeroCount);
  writeStore(out, sketch.store);
  writeStore(out, sketch.negativeStore);
  return Uint8Array.from(out);
}

/**
 * The compact form read back: the zero count, and per store (positive, negative) its bins as
 * `[key, count, key, count, …]`, keys rising (as `writeStore` wrote them).
 */
export interface CompactBins {
  readonly zeros: number;
  readonly stores: readonly [number[], number[]];
}

/** A compact form's varints, read in order from `at`. */
class VarintReader {
  constructor(
    private readonly bytes: Uint8Array,
    public at: number,
  ) {}

  next(): number {
    let value = 0;
    let scale = 1;
    for (let length = 1; length <= MAX_VARINT_BYTES; length++) {
      const byte = this.bytes[this.at++];
      if (byte === undefined) throw new Error('a stored sketch ends early');
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 0x80;
    }
    throw new Error('a stored sketch holds a number longer than any it writes');
  }
}

function readCompact(bytes: Uint8Array): CompactBins {
  const reader = new VarintReader(bytes, 1);
  const zeros = reader.next();
  const store = (): number[] => {
    const bins = reader.next();
    const flat: number[] = [];
    let key = 0;
    for (let i = 0; i < bins; i++) {
      key += unzigzag(reader.next());
      flat.push(key, reader.next());
    }
    return flat;
  };
  return { zeros, stores: [store(), store()] };
}

/**
 * Bins added into `into` through the library's own stores, key by key. Never the library's
 * `merge`: its dense store grows to the other's lowest key alone when the other's highest key is 0
 * (a latency of about 1 ms), so that bin's count was lost.
 */
function addBinsTo(into: Sketch, { zeros, stores }: CompactBins): void {
  into.zeroCount += zeros;
  into.count += zeros;
  [into.store, into.negativeStore].forEach((store, s) => {
    const flat = stores[s] ?? [];
    for (let i = 0; i < flat.length; i += 2) {
      const count = flat[i + 1] ?? 0;
      store.add(flat[i] ?? 0, count);
      into.count += count;
    }
  });
}

/** Two stores' bins (`CompactBins`) added key by key, keys still rising. */
function addBins(a: readonly number[], b: readonly number[]): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const ka = i < a.length ? (a[i] ?? 0) : Infinity;
    const kb = j < b.length ? (b[j] ?? 0) : Infinity;
    if (ka === kb) {
      out.push(ka, (a[i + 1] ?? 0) + (b[j + 1] ?? 0));
      i += 2;
      j += 2;
    } else if (ka < kb) {
      out.push(ka, a[i + 1] ?? 0);
      i += 2;
    } else {
      out.push(kb, b[j + 1] ?? 0);
      j += 2;
    }
  }
  return out;
}

/**
 * Into `into`, the sketch `bytes` holds (as stored); `null` (a row not yet filled) adds nothing.
 * Rows written before the compact form hold the library's protobuf (its first byte is 0x0a).
 */
export function mergeBytes(into: Sketch, bytes: Uint8Array | null): void {
  if (bytes === null || bytes.byteLength === 0) return;
  if (bytes[0] === COMPACT) addBinsTo(into, readCompact(bytes));
  else {
    const legacy = DDSketch.fromProto(bytes);
    addBinsTo(into, { zeros: legacy.zeroCount, stores: [flatOf(legacy.store), flatOf(legacy.negativeStore)] });
  }
}

/** Bins in the stored form: the bytes `encodeSketch` writes of a sketch that holds them. */
export function encodeBins(bins: CompactBins): Uint8Array {
  const out: number[] = [COMPACT];
  writeVarint(out, bins.zeros);
  writeBins(out, bins.stores[0]);
  writeBins(out, bins.stores[1]);
  return Uint8Array.from(out);
}

/**
 * SQLite's name for `mergeStored` (registered by db/sqlite.ts): ingest adds its numbers to a row
 * in the upsert itself there (writer.ts), instead of reading the row first.
 */
export const SKETCH_MERGE_FUNCTION = 'tapline_sketch_merge';

/**
 * SQLite's aggregate of stored sketches (registered by db/sqlite.ts): what a read of a window's
 * totals merges its rows with there, in the statement (read.ts), one stored sketch per group.
 */
export const SKETCH_UNION_AGGREGATE = 'tapline_sketch_union';

const NO_BINS: CompactBins = { zeros: 0, stores: [[], []] };

/** A stored sketch's bins (none for a row not yet filled); undefined for the library's protobuf. */
const compactBins = (bytes: Uint8Array | null): CompactBins | undefined =>
  bytes === null || bytes.byteLength === 0 ? NO_BINS : bytes[0] === COMPACT ? readCompact(bytes) : undefined;

/** `value` as a varint into `out` at `at`; where the next byte goes. */
function putVarint(out: Uint8Array, at: number, value: number): number {
  let v = varintValue(value);
  let w = at;
  while (v >= 0x80) {
    out[w++] = (v % 0x80) | 0x80;
    v = Math.floor(v / 0x80);
  }
  out[w++] = v;
  return w;
}

/**
 * One store's bins of two compact forms (`na` and `nb` of them, from the readers' places), added
 * key by key. With `out`, written there from `w` as `writeBins` writes them, and the place after
 * is returned; without, only counted: the number of keys the sum holds.
 */
function walkBins(
  ra: VarintReader,
  na: number,
  rb: VarintReader,
  nb: number,
  out: Uint8Array | null,
  w: number,
): number {
  // Plain variables: destructured from array literals, they made two iterators a bin (most of what
  // a batch's statistics allocated).
  let ia = 0;
  let ib = 0;
  let ka = 0;
  let kb = 0;
  let ca = 0;
  let cb = 0;
  if (na > 0) {
    ka = unzigzag(ra.next());
    ca = ra.next();
  }
  if (nb > 0) {
    kb = unzigzag(rb.next());
    cb = rb.next();
  }
  let at = w;
  let previous = 0;
  let keys = 0;
  while (ia < na || ib < nb) {
    const takeA = ia < na && (ib >= nb || ka <= kb);
    const takeB = ib < nb && (ia >= na || kb <= ka);
    const key = takeA ? ka : kb;
    const count = (takeA ? ca : 0) + (takeB ? cb : 0);
    if (out) {
      at = putVarint(out, at, zigzag(key - previous));
      at = putVarint(out, at, count);
    }
    previous = key;
    keys++;
    if (takeA && ++ia < na) {
      ka += unzigzag(ra.next());
      ca = ra.next();
    }
    if (takeB && ++ib < nb) {
      kb += unzigzag(rb.next());
      cb = rb.next();
    }
  }
  return out ? at : keys;
}

/**
 * Where SQLite's merges are written (`mergeStoredTransient`): grown as needed, never shrunk; a
 * sketch's compact form is a few hundred bytes.
 */
let scratch = new Uint8Array(4096);

/**
 * Two compact forms added straight from their bytes: no array of bins is made. Each store is walked
 * twice, to count the keys the sum holds (written first), then to write them. The result is valid
 * until the next call.
 */
function mergeCompactBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  // A merged bin's key delta or count is at most a byte longer than either input's.
  const bound = 3 * (a.byteLength + b.byteLength) + 16;
  if (scratch.byteLength < bound) scratch = new Uint8Array(2 * bound);
  const out = scratch;
  const ra = new VarintReader(a, 1);
  const rb = new VarintReader(b, 1);
  let w = 0;
  out[w++] = COMPACT;
  w = putVarint(out, w, ra.next() + rb.next());
  for (let store = 0; store < 2; store++) {
    const na = ra.next();
    const nb = rb.next();
    const fromA = ra.at;
    const fromB = rb.at;
    w = putVarint(out, w, walkBins(ra, na, rb, nb, null, 0));
    ra.at = fromA;
    rb.at = fromB;
    w = walkBins(ra, na, rb, nb, out, w);
  }
  if (w > out.byteLength) throw new Error('a merged sketch outgrew its bound');
  return out.subarray(0, w);
}

const isCompact = (bytes: Uint8Array | null): bytes is Uint8Array =>
  bytes !== null && bytes.byteLength > 0 && bytes[0] === COMPACT;

/**
 * Two stored sketches merged, in the stored form: what a row holds after both were added to it.
 * Two compact forms are added bin by bin, straight from their bytes (ingest's upsert on SQLite
 * merges a row per route and minute, hour and day of every batch, and an hour's or a day's row holds
 * a hundred bins and more: building a DDSketch of each and writing it back was about a sixth of the
 * statistics' cost of ingest, and reading both into arrays of bins and writing the sum through
 * another allocated some 15 KB a row, a young-generation collection a batch); the bytes are those
 * of one sketch of both, which `sketch.test.ts` checks against the library's merge. A row still in
 * the library's protobuf goes through the library.
 */
export function mergeStored(a: Uint8Array | null, b: Uint8Array | null): Uint8Array {
  return isCompact(a) && isCompact(b) ? mergeCompactBytes(a, b).slice() : mergeSlow(a, b);
}

/**
 * `mergeStored` for SQLite's function (db/sqlite.ts), which copies what it returns: two compact
 * forms' sum is given as a view of a buffer the next call writes over.
 */
export function mergeStoredTransient(a: Uint8Array | null, b: Uint8Array | null): Uint8Array {
  return isCompact(a) && isCompact(b) ? mergeCompactBytes(a, b) : mergeSlow(a, b);
}

function mergeSlow(a: Uint8Array | null, b: Uint8Array | null): Uint8Array {
  const [left, right] = [compactBins(a), compactBins(b)];
  if (left && right)
    return encodeBins({
      zeros: left.zeros + right.zeros,
      stores: [addBins(left.stores[0], right.stores[0]), addBins(left.stores[1], right.stores[1])],
    });
  const sketch = newSketch();
  mergeBytes(sketch, a);
  mergeBytes(sketch, b);
  return encodeSketch(sketch);
}

/** Any stored sketch's bins: the compact form read as it is, the library's protobuf through the library. */
export function binsOf(bytes: Uint8Array | null): CompactBins {
  const compact = compactBins(bytes);
  if (compact) return compact;
  const sketch = DDSketch.fromProto(bytes ?? new Uint8Array());
  return { zeros: sketch.zeroCount, stores: [flatOf(sketch.store), flatOf(sketch.negativeStore)] };
}

/** Several sketches' bins added key by key: `counts[k]` is the count of key `low + k`. */
interface Dense {
  readonly low: number;
  readonly counts: number[];
  readonly total: number;
}

/** Flat bins of several sketches added into one array over the keys all of them span. */
function denseOf(parts: readonly number[][]): Dense | undefined {
  let low = Infinity;
  let high = -Infinity;
  for (const flat of parts) {
    low = Math.min(low, flat[0] ?? Infinity);
    high = Math.max(high, flat[flat.length - 2] ?? -Infinity);
  }
  if (high < low) return undefined;
  const counts = new Array<number>(high - low + 1).fill(0);
  let total = 0;
  for (const flat of parts)
    for (let i = 0; i < flat.length; i += 2) {
      const count = flat[i + 1] ?? 0;
      const at = (flat[i] ?? 0) - low;
      counts[at] = (counts[at] ?? 0) + count;
      total += count;
    }
  return { low, counts, total };
}

/** Dense counts back to flat bins, `[key, count, …]`, keys rising, empty keys left out. */
function flatOfDense(dense: Dense | undefined): number[] {
  const out: number[] = [];
  if (dense)
    for (let k = 0; k < dense.counts.length; k++)
      if ((dense.counts[k] ?? 0) > 0) out.push(k + dense.low, dense.counts[k] ?? 0);
  return out;
}

/**
 * Sketches added up to be one, for a read that merges thousands of rows (read.ts): each row's bins
 * are only noted as they come, and summed once at the end into one array per store, over the keys
 * all of them span. `bins` is what a merge of all of them holds, `sketch` the library's DDSketch
 * of it, which answers the percentiles (`sketch.test.ts` checks both against the library's merge).
 * The sketch's stores are given that array as their bins (the stores' public fields: bins from
 * `offset`, the lowest and highest key, the total): given bin by bin through `add`, the library's
 * stores moved their bins each time a key reached past the range they held, and that and the
 * calls were half of a 24-hour read's time.
 */
export class SketchSum {
  private zeros = 0;
  private readonly parts: [number[][], number[][]] = [[], []];

  add(bins: CompactBins): void {
    this.zeros += bins.zeros;
    for (const s of [0, 1] as const) if (bins.stores[s].length > 0) this.parts[s].push(bins.stores[s]);
  }

  bins(): CompactBins {
    const flat = (s: 0 | 1) =>
      this.parts[s].length === 1 ? (this.parts[s][0] ?? []) : flatOfDense(denseOf(this.parts[s]));
    return { zeros: this.zeros, stores: [flat(0), flat(1)] };
  }

  sketch(): Sketch {
    const sketch = newSketch();
    sketch.zeroCount = this.zeros;
    sketch.count = this.zeros;
    for (const s of [0, 1] as const) {
      const dense = denseOf(this.parts[s]);
      if (!dense) continue;
      const store = s === 0 ? sketch.store : sketch.negativeStore;
      store.bins = dense.counts;
      store.offset = dense.low;
      store.minKey = dense.low;
      store.maxKey = dense.low + dense.counts.length - 1;
      store.count = dense.total;
      sketch.count += dense.total;
    }
    return sketch;
  }
}

/** Which bin of the library's (the mapping `newSketch` makes) a value falls in: a store and a key, or zero. */
export type BinOf = { readonly store: 0 | 1; readonly key: number } | null;

const MAPPING = newSketch().mapping;

/** An infinite latency has no bin (the library's `accept` fails on one too); NaN counts as zero, as there. */
const notALatency = (value: number): never => {
  throw new Error(`a latency of ${value} ms has no bin`);
};

/**
 * The bin a sketch made by `newSketch` puts `value` in, as its `accept` decides: the positive store
 * above the mapping's smallest value, the negative one below its opposite, else the zero count.
 */
export const binOf = (value: number): BinOf =>
  !Number.isFinite(value) && !Number.isNaN(value)
    ? notALatency(value)
    : value > MAPPING.minPossible
      ? { store: 0, key: MAPPING.key(value) }
      : value < -MAPPING.minPossible
        ? { store: 1, key: MAPPING.key(-value) }
        : null;

/**
 * Latencies counted into the library's bins, for what is summed and written rather than read:
 * ingest's rows (rollup.ts `totalsOf`), a rule's move, the hour and day rows' migration. Each value's
 * bin is worked out once (`binOf`) however many rows it is added to, and the tally is written in
 * the stored form straight from its counts. A DDSketch per row and span was two fifths of the
 * statistics' cost of a batch (a log per row, stores growing bin by bin; docs/statistics.md). The
 * bytes are those `encodeSketch` writes of a sketch that accepted the same values, which
 * `sketch.test.ts` checks; percentiles are still the library's (`SketchSum.sketch`).
 */
export class Tally {
  private zeros = 0;
  /** Per store, its bins as `[key, count, …]`, keys rising (as `CompactBins`); counts may pass through zero. */
  private readonly stores: [number[], number[]] = [[], []];

  accept(value: number): void {
    this.addBin(binOf(value), 1);
  }

  /** `count` values in one bin (negative: taken out, a rule's move). */
  addBin(bin: BinOf, count: number): void {
    if (bin === null) this.zeros += count;
    else addToBin(this.stores[bin.store], bin.key, count);
  }

  /** Another tally's or a stored sketch's (`binsOf`) counts added, or taken out with `sign` -1. */
  add(other: Tally | CompactBins, sign: 1 | -1 = 1): void {
    const bins: CompactBins = other instanceof Tally ? { zeros: other.zeros, stores: other.stores } : other;
    this.zeros += sign * bins.zeros;
    for (let s = 0; s < 2; s++) {
      const from = bins.stores[s] ?? [];
      const into = this.stores[s] ?? [];
      for (let i = 0; i < from.length; i += 2) addToBin(into, from[i] ?? 0, sign * (from[i + 1] ?? 0));
    }
  }

  /** The counts as stored: non-empty bins, keys rising. */
  bins(): CompactBins {
    // Zeros taken below none, as bins below (`storedBins`): counts the row never held.
    return { zeros: Math.max(0, this.zeros), stores: [storedBins(this.stores[0]), storedBins(this.stores[1])] };
  }

  /** The stored form: the bytes `encodeSketch` writes of a sketch holding the same values. */
  encode(): Uint8Array {
    const bins = this.bins();
    for (const flat of bins.stores)
      for (let i = 1; i < flat.length; i += 2)
        if (!Number.isInteger(flat[i])) throw new Error(`a sketch bin holds ${flat[i]}: only whole counts are stored`);
    return encodeBins(bins);
  }
}

/** `count` added to the bin `key` of flat bins whose keys rise, the bin made in its place if new. */
function addToBin(flat: number[], key: number, count: number): void {
  let low = 0;
  let high = flat.length / 2;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((flat[2 * middle] ?? 0) < key) low = middle + 1;
    else high = middle;
  }
  if (flat[2 * low] === key) flat[2 * low + 1] = (flat[2 * low + 1] ?? 0) + count;
  else flat.splice(2 * low, 0, key, count);
}

/**
 * Flat bins as stored: those with a count above zero. A bin taken below zero (a move's numbers that
 * the row never counted, such as entries stored under --no-stats) is left out, having no stored
 * form. The same array when every count is above zero.
 */
function storedBins(flat: number[]): number[] {
  let positive = true;
  for (let i = 1; i < flat.length; i += 2) if ((flat[i] ?? 0) <= 0) positive = false;
  if (positive) return flat;
  const out: number[] = [];
  for (let i = 0; i < flat.length; i += 2) if ((flat[i + 1] ?? 0) > 0) out.push(flat[i] ?? 0, flat[i + 1] ?? 0);
  return out;
}

/** The percentile `q` (0..1) of what the sketch holds, in milliseconds; null when it holds nothing. */
export function quantileOf(sketch: Sketch, q: number): number | null {
  return sketch.count === 0 ? null : sketch.getValueAtQuantile(q);
}
