/**
 * Id prefixes, git's way: any start of an id of at least `MIN_ID_PREFIX` hex digits names the id
 * it begins, when only one does. Ids are UUIDs (v7 for entries: the first 12 hex digits are the
 * millisecond they were made), written lower case with hyphens after hex digits 8, 12, 16 and 20.
 */
export const MIN_ID_PREFIX = 8;
const HEX_DIGITS = 32;
const HYPHENS_AFTER = [8, 12, 16, 20];

/** 32 hex digits (or fewer) written as a UUID is: `019a4c2e7b1d` becomes `019a4c2e-7b1d`. */
export function hyphenate(hex: string): string {
  let out = '';
  for (let i = 0; i < hex.length; i++) out += (HYPHENS_AFTER.includes(i) ? '-' : '') + hex[i];
  return out;
}

/** The hex digits of a prefix as typed (any case, hyphens anywhere or none), or null when it is not one. */
export function prefixDigits(text: string): string | null {
  const hex = text.trim().toLowerCase().replace(/-/g, '');
  return new RegExp(`^[0-9a-f]{${MIN_ID_PREFIX},${HEX_DIGITS}}$`).test(hex) ? hex : null;
}

/**
 * The inclusive range of ids a prefix names. Two full UUIDs rather than a LIKE pattern: a range
 * on the primary key is an index seek in SQLite (text ids) and PostgreSQL (uuid columns) alike.
 */
export function idPrefixRange(text: string): { readonly min: string; readonly max: string } | null {
  const hex = prefixDigits(text);
  if (!hex) return null;
  return { min: hyphenate(hex.padEnd(HEX_DIGITS, '0')), max: hyphenate(hex.padEnd(HEX_DIGITS, 'f')) };
}

/** The shortest prefix length (in characters, hyphens counted, at least `min`) that tells all `ids` apart. */
export function uniquePrefixLength(ids: readonly string[], min: number): number {
  const sorted = [...ids].sort();
  let length = min;
  for (let i = 1; i < sorted.length; i++) {
    const a = sorted[i - 1] ?? '';
    const b = sorted[i] ?? '';
    let common = 0;
    while (common < a.length && a[common] === b[common]) common++;
    // A prefix ending on a hyphen says no more than one without it: take the next digit too.
    const needed = common + 1 + (b[common] === '-' ? 1 : 0);
    if (a !== b && needed > length) length = needed;
  }
  return length;
}
