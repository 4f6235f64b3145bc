import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { recordUrl, shellQuote, toCurl } from './curl.js';

const record = (over: Partial<Parameters<typeof toCurl>[0]> = {}): Parameters<typeof toCurl>[0] => ({
  method: 'POST',
  protocol: 'HTTPS',
  domain: 'shop.example.com:8443',
  pathname: '/api/orders',
  request: { headers: {}, body: null, queryParams: {} },
  ...over,
});

/** What bash makes of a quoted word: the word itself, exactly. */
const echoed = (word: string) => execFileSync('bash', ['-c', `printf %s ${shellQuote(word)}`], { encoding: 'utf8' });

describe('shellQuote', () => {
  it('keeps any text literal in bash', () => {
    for (const word of ["it's", '$HOME `id` $(whoami)', 'a\nb', '"double" \\ back', '!event', '*', ''])
      expect(echoed(word)).toBe(word);
    expect(shellQuote('plain-word_1.2')).toBe('plain-word_1.2');
  });
});

describe('toCurl', () => {
  it('builds the URL from protocol, domain, path and query, repeating list values', () => {
    expect(
      recordUrl(record({ request: { headers: {}, body: null, queryParams: { q: 'a b', tag: ['x', 'y'] } } })),
    ).toBe('https://shop.example.com:8443/api/orders?q=a+b&tag=x&tag=y');
  });

  it('leaves out redacted, hop-by-hop and derived headers, Expect and HTTP/2 pseudo-headers', () => {
    const curl = toCurl(
      record({
        request: {
          headers: {
            Accept: 'application/json',
            authorization: '[REDACTED]',
            Connection: 'keep-alive',
            host: 'x',
            'content-length': '9',
            Expect: '100-continue',
            ':authority': 'x',
            'x-many': ['1', '2'],
          },
          body: { a: 1 },
          queryParams: {},
        },
      }),
    );
    expect(curl).toBe(
      [
        'curl -X POST https://shop.example.com:8443/api/orders \\',
        "  -H 'Accept: application/json' \\",
        "  -H 'x-many: 1' \\",
        "  -H 'x-many: 2' \\",
        `  --data-raw '{"a":1}'`,
      ].join('\n'),
    );
  });

  it('sends a text body as is, and guards paths curl would rewrite', () => {
    expect(toCurl(record({ pathname: '/a/../b[1]', request: { headers: {}, body: 'x=1', queryParams: {} } }))).toBe(
      "curl --globoff --path-as-is -X POST 'https://shop.example.com:8443/a/../b[1]' \\\n  --data-raw x=1",
    );
  });
});
