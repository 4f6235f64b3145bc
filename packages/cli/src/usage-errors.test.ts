import { describe, expect, it } from 'vitest';
import { usageMessage } from './usage-errors.js';

describe("commander's messages in the CLI's words", () => {
  it('a bad flag value names the flag, the reason and the value', () => {
    expect(usageMessage("error: option '--page <n>' argument '-1' is invalid. must be a whole number from 1")).toBe(
      '--page must be a whole number from 1 (got -1)',
    );
    expect(usageMessage("error: option '-o, --output <file>' argument '' is invalid. must be a file")).toBe(
      '--output must be a file (got )',
    );
    expect(
      usageMessage("error: option '-n, --lines <n>' argument 'x' is invalid. must be a whole number from 0 to 1000"),
    ).toBe('--lines must be a whole number from 0 to 1000 (got x)');
  });

  it("drops `error: ` and joins commander's suggestion onto the line", () => {
    expect(usageMessage("error: unknown command 'lst'\n(Did you mean one of list, ls?)")).toBe(
      "unknown command 'lst' (did you mean one of list, ls?)",
    );
    expect(usageMessage("error: missing required argument 'source'")).toBe("missing required argument 'source'");
  });
});
