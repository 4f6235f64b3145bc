import { describe, expect, it } from 'vitest';
import { KEPT_PATHS, TemplateMatcher } from './paths.js';

describe('the parameters of recorded paths (issue 28, path parameters)', () => {
  it('reads the decoded values of the template parameters a path fills, and undefined for a path that does not', () => {
    const matcher = new TemplateMatcher((value) => `<${value}>`);
    expect(matcher.values('/users/{id}/orders/{orderId}', '/users/a%20b/orders/7?x=1')).toEqual(['<a b>', '<7>']);
    expect(matcher.values('/users/{id}', '/users/%E0%A4%A/')).toEqual(['<%E0%A4%A>']);
    expect(matcher.values('/users/{id}', '/teams/1')).toBe(undefined);
    expect(matcher.values('/health', '/health')).toEqual([]);
  });

  it('reads each recorded path once per template, and forgets them all past KEPT_PATHS', () => {
    const read: string[] = [];
    const matcher = new TemplateMatcher((value) => (read.push(value), Number(value)));
    for (let round = 0; round < 3; round++) {
      expect(matcher.values('/items/{id}', '/items/1')).toEqual([1]);
      expect(matcher.values('/things/{id}', '/items/1')).toBe(undefined);
    }
    expect(matcher.values('/other/{id}', '/other/1')).toEqual([1]);
    expect(read).toEqual(['1', '1']);
    // Three paths are kept (a path that does not fill its template too): fill the matcher up.
    for (let i = 2; i < KEPT_PATHS - 1; i++) matcher.values('/items/{id}', `/items/${i}`);
    expect(read).toHaveLength(KEPT_PATHS - 1);
    expect(matcher.values('/items/{id}', '/items/1')).toEqual([1]);
    expect(read).toHaveLength(KEPT_PATHS - 1);
    // The next new path finds the matcher full: every kept path is forgotten, and read again when it comes back.
    expect(matcher.values('/items/{id}', '/items/new')).toEqual([Number.NaN]);
    expect(matcher.values('/items/{id}', '/items/1')).toEqual([1]);
    expect(read.slice(KEPT_PATHS - 1)).toEqual(['new', '1']);
  });
});
