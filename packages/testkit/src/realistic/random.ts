/**
 * A seeded pseudo-random source: mulberry32, a few lines with a good enough spread for test data.
 * Hand-written rather than taken from fast-check, whose generators live inside its property runner;
 * here plain code (the bench, fixtures) needs the same record for the same seed, every run.
 */
export interface Random {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max]. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  /** `length` characters of `alphabet`. */
  text(length: number, alphabet?: string): string;
  hex(length: number): string;
  chance(p: number): boolean;
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export function createRandom(seed: number): Random {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const text = (length: number, alphabet = ALPHANUMERIC) => {
    let out = '';
    for (let i = 0; i < length; i++) out += alphabet[Math.floor(next() * alphabet.length)];
    return out;
  };
  return {
    next,
    int,
    pick: <T>(items: readonly T[]): T => {
      const item = items[Math.floor(next() * items.length)];
      if (item === undefined) throw new Error('pick from an empty list');
      return item;
    },
    text,
    hex: (length) => text(length, '0123456789abcdef'),
    chance: (p) => next() < p,
  };
}
