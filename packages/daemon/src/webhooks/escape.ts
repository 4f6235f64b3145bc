/**
 * Chat text as trusted markup plus values. Every value interpolated with `rich` may come from
 * the monitored app's visitors (a path, a domain), so each chat escapes values by its own rules
 * and never lets them form markup: no mention, no disguised link, no heading or quote.
 */
export type Rich = readonly (string | { readonly value: string })[];

export function rich(strings: TemplateStringsArray, ...values: readonly (string | number | Rich)[]): Rich {
  const parts: (string | { value: string })[] = [strings[0] ?? ''];
  values.forEach((v, i) => {
    if (typeof v === 'number') parts.push(String(v));
    else if (typeof v === 'string') parts.push({ value: v });
    else parts.push(...v);
    parts.push(strings[i + 1] ?? '');
  });
  return parts;
}

/** `a, b, c` of rich parts; the separator is markup. */
export const joinRich = (items: readonly Rich[], separator: string): Rich =>
  items.flatMap((item, i) => (i === 0 ? item : [separator, ...item]));

/** The text as it reads, unescaped (for the `http` webhook's JSON, which no chat renders). */
export const plain = (text: Rich): string => text.map((p) => (typeof p === 'string' ? p : p.value)).join('');

/** Escapes one code point of a value. */
export type Escape = (codePoint: string) => string;

/** Control characters would start new lines (a heading, a quote): shown as their Control Pictures. */
function visible(codePoint: string): string {
  const code = codePoint.codePointAt(0) ?? 0;
  if (code < 0x20) return String.fromCodePoint(0x2400 + code);
  return code === 0x7f ? '\u2421' : codePoint;
}

const SLACK_ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/**
 * Slack's three control characters (docs.slack.dev, "Escaping text"): without `<`, a value can
 * form neither `<!channel>` nor `<url|label>`. mrkdwn has no escape for `*_~\``; they can only
 * change emphasis. Applied to plain_text too, since Slack decodes these entities in every text.
 */
export const slackEscape: Escape = (cp) => {
  const c = visible(cp);
  return SLACK_ENTITIES[c] ?? c;
};

/**
 * Markdown (and Discord's `||spoiler||`, `<@id>`, `<t:…>`) punctuation. `-` and `+` start a list
 * only at the start of a line, which a value never begins: it has no line breaks (see `visible`)
 * and every text starts with markup or a path (`/…`).
 */
const DISCORD_MARKUP = new Set(['\\', '*', '_', '~', '`', '|', '>', '<', '[', ']', '(', ')', '#']);

/**
 * A backslash before Markdown punctuation shows it literally; a zero-width space after `@` keeps
 * `@everyone` and `@here` from reading as mentions (what discord.js's `cleanContent` does).
 * `allowed_mentions: {parse: []}` already stops any ping; this stops the look of one.
 */
export const discordEscape: Escape = (cp) => {
  const c = visible(cp);
  if (c === '@') return '@\u200b';
  return DISCORD_MARKUP.has(c) ? `\\${c}` : c;
};

/**
 * Renders `text` in at most `max` UTF-16 code units (what discord.js and Slack count), escaping
 * values. A cut falls between whole escaped code points, so neither a surrogate pair nor an
 * escape sequence (`&amp;`, `\*`) is ever split; an ellipsis marks it.
 */
export function render(text: Rich, escape: Escape, max: number): string {
  const atoms: string[] = [];
  for (const part of text) {
    if (typeof part === 'string') for (const cp of part) atoms.push(cp);
    else for (const cp of part.value) atoms.push(escape(cp));
  }
  const whole = atoms.join('');
  if (whole.length <= max) return whole;
  let out = '';
  for (const atom of atoms) {
    if (out.length + atom.length + 1 > max) break;
    out += atom;
  }
  return `${out}…`;
}
