import { splitTruncation } from '../capture/truncation.js';
import { redactJsonPairs } from './json-text.js';
import { REDACTED, SECRET_KEYS } from './keys.js';

/** A form starts with a name and `=`; JSON, markup and prose do not. */
const FORM_START = /^[^\s"'{}[\]<>=&]+=/;
/** multipart/form-data opens with its boundary's delimiter line. */
const MULTIPART_START = /^--([^\r\n]{1,200}?)[ \t]*\r?\n/;
const HEADERS_END = /\r?\n\r?\n/;
/** The `name` parameter of a part's Content-Disposition (`filename` is another parameter). */
const PART_NAME = /^content-disposition:[^\r\n]*?;[ \t]*name[ \t]*=[ \t]*(?:"((?:[^"\\\r\n]|\\.)*)"|([^;\s]+))/im;

/** A form name as URLSearchParams reads it; a broken percent escape is read byte by byte. */
function formName(raw: string): string {
  const spaced = raw.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }
}

/** `name=value&…` with the value of every secret name replaced; a value the text ends inside, to the end. */
function redactForm(text: string, keys: RegExp): string {
  if (!keys.test(text) && !text.includes('%')) return text;
  let changed = false;
  const pairs = text.split('&').map((pair) => {
    const eq = pair.indexOf('=');
    if (eq === -1 || !keys.test(formName(pair.slice(0, eq)))) return pair;
    changed = true;
    return `${pair.slice(0, eq + 1)}${REDACTED}`;
  });
  return changed ? pairs.join('&') : text;
}

/** A part of a text body: a form or JSON pairs, by its first characters. */
const redactContent = (text: string, keys: RegExp) =>
  FORM_START.test(text) ? redactForm(text, keys) : redactJsonPairs(text, keys);

/** One part (its headers and content, without the delimiter line): a secret name's content replaced, any other content redacted as text. */
function redactPart(part: string, keys: RegExp): string {
  const blank = HEADERS_END.exec(part);
  // Cut inside the headers: no content is shown.
  if (!blank) return part;
  const start = blank.index + blank[0].length;
  const name = PART_NAME.exec(part.slice(0, blank.index));
  const raw = name?.[1] ?? name?.[2];
  if (raw !== undefined && keys.test(raw.replace(/\\(.)/g, '$1'))) return `${part.slice(0, start)}${REDACTED}`;
  const content = part.slice(start);
  const redacted = redactContent(content, keys);
  return redacted === content ? part : part.slice(0, start) + redacted;
}

/** multipart/form-data, whole or cut: each part between delimiter lines (`\r\n--boundary`), the last to the text's end. */
function redactMultipart(text: string, boundary: string, keys: RegExp): string {
  const delimiter = `\n--${boundary}`;
  let out = '';
  let changed = false;
  // Where the current delimiter line begins.
  let line = 0;
  for (;;) {
    const lineEnd = text.indexOf('\n', line);
    if (lineEnd === -1) return changed ? out + text.slice(line) : text;
    const start = lineEnd + 1;
    const next = text.indexOf(delimiter, start);
    const end = next === -1 ? text.length : next - 1 >= start && text.charCodeAt(next - 1) === 0x0d ? next - 1 : next;
    const part = text.slice(start, end);
    const redacted = redactPart(part, keys);
    changed ||= redacted !== part;
    out += text.slice(line, start) + redacted;
    if (next === -1) return changed ? out : text;
    // The line break that belongs to the next delimiter.
    out += text.slice(end, next + 1);
    line = next + 1;
  }
}

/**
 * A text body with the values of secret names replaced by `[REDACTED]`, whether or not it parses:
 * a cut JSON text (its `"key": value` pairs, even a value the cut split), a form (`key=value&`),
 * or multipart/form-data (a part whose Content-Disposition `name` is secret; JSON and form parts by
 * their pairs). The truncation marker a client appended is kept. `keys` is the one rule of names
 * (keys.ts): the built-in names by default, with the daemon's `--redact-keys` where it runs it.
 * One home for this rule: the daemon runs it on every text body it stores, and every capture
 * client on a body before cutting it, so a cut text never holds a secret the whole body hid.
 */
export function redactText(text: string, keys: RegExp = SECRET_KEYS): string {
  const { kept, marker } = splitTruncation(text);
  const multipart = MULTIPART_START.exec(kept);
  const redacted = multipart?.[1] ? redactMultipart(kept, multipart[1], keys) : redactContent(kept, keys);
  return redacted === kept ? text : redacted + marker;
}
