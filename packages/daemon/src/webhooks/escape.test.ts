import { describe, expect, it } from 'vitest';
import { discordEscape, render, rich, slackEscape } from './escape.js';

/** Half of a surrogate pair without its other half: what a cut in the middle of an emoji leaves. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('render', () => {
  it('escapes interpolated values only, never the markup around them', () => {
    expect(render(rich`*Path*\n${'/a&<b>'}`, slackEscape, 100)).toBe('*Path*\n/a&amp;&lt;b&gt;');
    expect(render(rich`**${'*x*'}**`, discordEscape, 100)).toBe('**\\*x\\***');
  });

  it('cuts between whole escapes and whole code points, within the limit in UTF-16 units', () => {
    const slack = render(rich`${'&'.repeat(100)}`, slackEscape, 23);
    expect(slack).toBe(`${'&amp;'.repeat(4)}…`);
    const discord = render(rich`${'*'.repeat(100)}`, discordEscape, 10);
    expect(discord).toBe(`${'\\*'.repeat(4)}…`);
    const emoji = render(rich`${'😀'.repeat(10)}`, discordEscape, 8);
    expect(emoji).toBe('😀😀😀…');
    expect(emoji).not.toMatch(LONE_SURROGATE);
  });

  it('shows control characters instead of letting them start a line', () => {
    expect(render(rich`${'a\nb\r\u007f'}`, discordEscape, 100)).toBe('a␊b␍␡');
  });
});
