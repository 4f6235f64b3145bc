import { REDACTED } from './keys.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const REPLACEMENT = JSON.stringify(REDACTED);

const isSpace = (code: number) => code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;

function skipSpace(text: string, from: number): number {
  let i = from;
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
}

/** Just past the string whose opening quote is at `start`; -1 when the text ends inside it (a cut). */
function stringEnd(text: string, start: number): number {
  let from = start + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote === -1) return -1;
    // A quote after an odd run of backslashes is escaped. Each run is counted once, before its quote.
    let backslashes = 0;
    while (quote - backslashes - 1 > start && text.charCodeAt(quote - backslashes - 1) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/** Just past the value that starts at `start`: a string, an object or array (brackets balanced, strings skipped), or a literal. The text's end when it is cut inside. */
function valueEnd(text: string, start: number): number {
  const first = text.charCodeAt(start);
  if (first === QUOTE) {
    const end = stringEnd(text, start);
    return end === -1 ? text.length : end;
  }
  if (first === 0x7b || first === 0x5b) {
    let depth = 0;
    for (let i = start; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code === QUOTE) {
        const end = stringEnd(text, i);
        if (end === -1) return text.length;
        i = end - 1;
      } else if (code === 0x7b || code === 0x5b) depth++;
      else if (code === 0x7d || code === 0x5d) {
        depth--;
        if (depth === 0) return i + 1;
      }
    }
    return text.length;
  }
  let i = start;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code === 0x2c || code === 0x7d || code === 0x5d || isSpace(code)) break;
    i++;
  }
  return i;
}

/** A key as JSON.parse would read it (`"pass\u0077ord"` is `password`); as written when its escapes are broken. */
function keyOf(raw: string): string {
  if (!raw.includes('\\')) return raw;
  try {
    return String(JSON.parse(`"${raw}"`));
  } catch {
    return raw;
  }
}

/**
 * `"key": value` pairs of a JSON text, whole or cut anywhere, with the value of every key `keys`
 * matches replaced by `"[REDACTED]"`, as the daemon redacts parsed JSON: the whole value, even an
 * object, at any depth; a value the text ends inside is replaced to the end. A string is a key when
 * a colon follows it, so text inside string values is never taken for a key. Read left to right
 * in one pass; a text that never matches `keys` (nor holds a `\u` escape that could spell a key)
 * comes back untouched without being read further.
 */
export function redactJsonPairs(text: string, keys: RegExp): string {
  if (!keys.test(text) && !text.includes('\\u')) return text;
  let out = '';
  let copied = 0;
  let at = text.indexOf('"');
  while (at !== -1) {
    const end = stringEnd(text, at);
    if (end === -1) break;
    const colon = skipSpace(text, end);
    if (text.charCodeAt(colon) !== COLON) {
      at = text.indexOf('"', end);
      continue;
    }
    const value = skipSpace(text, colon + 1);
    if (!keys.test(keyOf(text.slice(at + 1, end - 1)))) {
      at = text.indexOf('"', value);
      continue;
    }
    if (value >= text.length) break;
    const after = valueEnd(text, value);
    out += text.slice(copied, value) + REPLACEMENT;
    copied = after;
    at = text.indexOf('"', after);
  }
  return copied === 0 ? text : out + text.slice(copied);
}
