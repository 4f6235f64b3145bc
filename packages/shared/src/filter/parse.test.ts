import { describe, expect, it } from 'vitest';
import { FILTER_LIMITS, type FilterExpr } from './ast.js';
import { FilterSyntaxError, parseFilter, pointAtColumn, tryParseFilter } from './parse.js';

const cmp = (field: string, op: string, value: string | number, header?: string): FilterExpr =>
  (header === undefined
    ? { type: 'compare', field, op, value }
    : { type: 'compare', field, header, op, value }) as FilterExpr;

describe('parseFilter: the examples of issue 4', () => {
  it.each<[string, FilterExpr]>([
    ['status>=500', cmp('status', '>=', 500)],
    ['status=4xx', cmp('status', '=', '4xx')],
    [
      'method=POST and path^=/api/',
      { type: 'and', operands: [cmp('method', '=', 'POST'), cmp('path', '^=', '/api/')] },
    ],
    ['level=FATAL or latency>1000', { type: 'or', operands: [cmp('level', '=', 'FATAL'), cmp('latency', '>', 1000)] }],
    [
      'domain=shop.example.com and not path~"health"',
      {
        type: 'and',
        operands: [cmp('domain', '=', 'shop.example.com'), { type: 'not', operand: cmp('path', '~', 'health') }],
      },
    ],
    ['header.content-type~json', cmp('header', '~', 'json', 'content-type')],
    ['body~"timeout"', cmp('body', '~', 'timeout')],
  ])('%s', (text, expected) => {
    expect(parseFilter(text)).toEqual(expected);
  });
});

describe('parseFilter: precedence and grouping', () => {
  it('binds and tighter than or', () => {
    expect(parseFilter('status=500 or method=GET and level=INFO')).toEqual({
      type: 'or',
      operands: [
        cmp('status', '=', 500),
        { type: 'and', operands: [cmp('method', '=', 'GET'), cmp('level', '=', 'INFO')] },
      ],
    });
    expect(parseFilter('status=500 and method=GET or level=INFO')).toEqual({
      type: 'or',
      operands: [
        { type: 'and', operands: [cmp('status', '=', 500), cmp('method', '=', 'GET')] },
        cmp('level', '=', 'INFO'),
      ],
    });
  });

  it('binds not tighter than and', () => {
    expect(parseFilter('not status=500 and method=GET')).toEqual({
      type: 'and',
      operands: [{ type: 'not', operand: cmp('status', '=', 500) }, cmp('method', '=', 'GET')],
    });
  });

  it('lets parentheses override, and keeps a parenthesised chain as its own node', () => {
    expect(parseFilter('(status=500 or method=GET) and level=INFO')).toEqual({
      type: 'and',
      operands: [
        { type: 'or', operands: [cmp('status', '=', 500), cmp('method', '=', 'GET')] },
        cmp('level', '=', 'INFO'),
      ],
    });
    expect(parseFilter('not (status=500 or status=502)')).toEqual({
      type: 'not',
      operand: { type: 'or', operands: [cmp('status', '=', 500), cmp('status', '=', 502)] },
    });
    expect(parseFilter('a=1 and (b=2 and c=3)'.replace(/[abc]=/g, 'status='))).toEqual({
      type: 'and',
      operands: [cmp('status', '=', 1), { type: 'and', operands: [cmp('status', '=', 2), cmp('status', '=', 3)] }],
    });
  });

  it('chains of one kind are n-ary', () => {
    expect(parseFilter('status=1 or status=2 or status=3')).toEqual({
      type: 'or',
      operands: [cmp('status', '=', 1), cmp('status', '=', 2), cmp('status', '=', 3)],
    });
  });

  it('takes `not not`', () => {
    expect(parseFilter('not not status=1')).toEqual({
      type: 'not',
      operand: { type: 'not', operand: cmp('status', '=', 1) },
    });
  });
});

describe('parseFilter: lexical details', () => {
  it('allows spaces around operators and case-insensitive keywords and fields', () => {
    expect(parseFilter('  STATUS >= 500  AND  Method = post ')).toEqual({
      type: 'and',
      operands: [cmp('status', '>=', 500), cmp('method', '=', 'POST')],
    });
  });

  it('normalises levels, protocols, domains and header names', () => {
    expect(parseFilter('level=fatal')).toEqual(cmp('level', '=', 'FATAL'));
    expect(parseFilter('protocol!=https')).toEqual(cmp('protocol', '!=', 'HTTPS'));
    expect(parseFilter('domain=Shop.Example.COM')).toEqual(cmp('domain', '=', 'shop.example.com'));
    expect(parseFilter('header.X-Request-ID=abc')).toEqual(cmp('header', '=', 'abc', 'x-request-id'));
  });

  it('reads latency units and status classes', () => {
    expect(parseFilter('latency>1.5s')).toEqual(cmp('latency', '>', 1500));
    expect(parseFilter('latency<=250ms')).toEqual(cmp('latency', '<=', 250));
    expect(parseFilter('latency<0.5')).toEqual(cmp('latency', '<', 0.5));
    expect(parseFilter('status<5XX')).toEqual(cmp('status', '<', '5xx'));
  });

  it('reads quoted strings with escapes and both quote kinds', () => {
    expect(parseFilter(`body~"say \\"hi\\""`)).toEqual(cmp('body', '~', 'say "hi"'));
    expect(parseFilter(`body~'it\\'s'`)).toEqual(cmp('body', '~', "it's"));
    expect(parseFilter(`path="a b\\\\c"`)).toEqual(cmp('path', '=', 'a b\\c'));
    expect(parseFilter(`path="C:\\temp"`)).toEqual(cmp('path', '=', 'C:\\temp'));
    expect(parseFilter(`user=""`)).toEqual(cmp('user', '=', ''));
    expect(parseFilter(`path="(x) and y"`)).toEqual(cmp('path', '=', '(x) and y'));
  });

  it('ends a bare value at a space or parenthesis, and keeps operator characters inside it', () => {
    expect(parseFilter('(path=/a?b=c&d>1)')).toEqual(cmp('path', '=', '/a?b=c&d>1'));
    expect(parseFilter('path=and')).toEqual(cmp('path', '=', 'and'));
    expect(parseFilter('not(status=1)')).toEqual({ type: 'not', operand: cmp('status', '=', 1) });
  });
});

/** The mistake, and the 1-based column `parseFilter` must report for it. */
const ERRORS: [string, number, RegExp][] = [
  ['', 1, /expected a condition/],
  ['   ', 4, /expected a condition/],
  ['stauts>=500', 1, /unknown field "stauts"/],
  ['status', 7, /expected an operator/],
  ['status 500', 8, /expected an operator/],
  ['status>=', 9, /expected a value after >=/],
  ['status>=abc', 9, /status takes a status code/],
  ['status=6xx', 8, /status takes a status code/],
  ['status^=5', 7, /status does not take \^=/],
  ['latency>fast', 9, /latency takes milliseconds/],
  ['level=DEBUG', 7, /level is one of INFO, WARNING, FATAL/],
  ['method=OPTIONS', 8, /method is one of GET/],
  ['method~PO', 7, /method does not take ~/],
  ['protocol=ftp', 10, /protocol is one of HTTP, HTTPS/],
  ['header=json', 1, /name the header/],
  ['header.~json', 8, /expected a header name/],
  ['path~"health', 6, /unterminated string/],
  ['status>=500 and', 16, /expected a condition/],
  ['status>=500 or or method=GET', 16, /expected a condition, found "or"/],
  ['status>=500 method=GET', 13, /expected "and", "or" or the end, found "method=GET"/],
  ['(status>=500', 13, /missing "\)" to close the "\(" at column 1/],
  ['(status>=500 method=GET)', 14, /expected "\)" or "and"\/"or"/],
  ['status>=500)', 12, /unexpected "\)"/],
  ['()', 2, /expected a field/],
  ['not', 4, /expected a condition/],
  ['status>=500 and =5', 17, /expected a field/],
  ['path=/a and domain=', 20, /expected a value after =/],
];

describe('parseFilter: every error names its column', () => {
  it.each(ERRORS)('%j fails at column %i', (text, column, reason) => {
    const result = tryParseFilter(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toBeInstanceOf(FilterSyntaxError);
    expect(result.error.column).toBe(column);
    expect(result.error.reason).toMatch(reason);
    expect(result.error.message).toBe(`${result.error.reason} at column ${column}`);
  });

  it('limits nesting, length and the number of conditions', () => {
    expect(() => parseFilter(`${'('.repeat(40)}status=1${')'.repeat(40)}`)).toThrow(
      /nesting is deeper than 32 levels at column 33/,
    );
    expect(() => parseFilter(`status=1${' or status=1'.repeat(100)}`)).toThrow(/more than 100 conditions/);
    expect(() => parseFilter(`path=${'a'.repeat(4000)}`)).toThrow(/longer than 4000 characters at column 4001/);
  });

  it('points a caret at the column', () => {
    const result = tryParseFilter('status>=5OO');
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(pointAtColumn(result.error)).toBe(
        'status>=5OO\n        ^ status takes a status code such as 404 or a class such as 4xx, not "5OO"',
      );
  });
});

/** `n` conditions joined by `or`, so the count is exact and nothing nests. */
const conditions = (n: number) => Array.from({ length: n }, (_, i) => `status=${100 + i}`).join(' or ');

describe(`parseFilter: each limit of FILTER_LIMITS (${JSON.stringify(FILTER_LIMITS)}) holds at the limit and refuses one past it`, () => {
  it.each([
    ['parentheses', (n: number) => `${'('.repeat(n)}status=1${')'.repeat(n)}`],
    ['nots', (n: number) => `${'not '.repeat(n)}status=1`],
  ])('takes 32 levels of %s and refuses 33', (_, nest) => {
    expect(FILTER_LIMITS.depth).toBe(32);
    expect(tryParseFilter(nest(32)).ok).toBe(true);
    expect(() => parseFilter(nest(33))).toThrow(/nesting is deeper than 32 levels/);
  });

  it('counts depth, not groups: 33 sibling groups, each one level deep, parse', () => {
    const siblings = Array.from({ length: 33 }, (_, i) => `(status=${200 + i})`).join(' or ');
    expect(parseFilter(siblings)).toEqual({
      type: 'or',
      operands: Array.from({ length: 33 }, (_, i) => cmp('status', '=', 200 + i)),
    });
    const deepThenWide = `${'('.repeat(32)}status=1${')'.repeat(32)} and ${'('.repeat(32)}status=2${')'.repeat(32)}`;
    expect(tryParseFilter(deepThenWide).ok).toBe(true);
  });

  it('takes 4,000 characters and refuses 4,001 at column 4001', () => {
    const at = `path=${'a'.repeat(FILTER_LIMITS.length - 'path='.length)}`;
    expect(at).toHaveLength(4000);
    expect(parseFilter(at)).toEqual(cmp('path', '=', 'a'.repeat(3995)));
    const past = tryParseFilter(`${at}a`);
    expect(past.ok).toBe(false);
    if (!past.ok) expect(past.error.message).toBe('the expression is longer than 4000 characters at column 4001');
  });

  it('takes 100 conditions and refuses the 101st, naming its column', () => {
    expect(FILTER_LIMITS.comparisons).toBe(100);
    expect(tryParseFilter(conditions(100)).ok).toBe(true);
    const text = conditions(101);
    const past = tryParseFilter(text);
    expect(past.ok).toBe(false);
    if (!past.ok) {
      expect(past.error.reason).toBe('more than 100 conditions');
      expect(past.error.column).toBe(text.lastIndexOf('status=200') + 1);
    }
  });
});
