import { describe, expect, it } from 'vitest';
import { mediaOf } from './evidence.js';

describe('the media type of a stored body (issue 28, content types)', () => {
  it('is the Content-Type without parameters, lowercased, found whatever the header name’s case', () => {
    for (let call = 0; call < 2; call++) {
      expect(mediaOf({ 'Content-Type': 'Application/JSON; charset=utf-8' }, {})).toBe('application/json');
      expect(mediaOf({ 'content-type': ' application/problem+json ' }, {})).toBe('application/problem+json');
      expect(mediaOf({ accept: 'text/html', 'CONTENT-TYPE': 'text/csv' }, 'a,b')).toBe('text/csv');
    }
  });

  it('is what the stored value is when the header is missing, unreadable or a list', () => {
    expect(mediaOf({}, 'plain')).toBe('text/plain');
    expect(mediaOf({}, { a: 1 })).toBe('application/json');
    expect(mediaOf({ 'content-type': 'nonsense' }, 'x')).toBe('text/plain');
    expect(mediaOf({ 'content-type': ['text/html', 'text/plain'] }, [1])).toBe('application/json');
  });

  it('answers a long Content-Type (not kept) as a short one, at every call', () => {
    const long = `application/vnd.api+json; profile="${'a'.repeat(300)}"`;
    for (let call = 0; call < 3; call++) expect(mediaOf({ 'content-type': long }, {})).toBe('application/vnd.api+json');
    // Many distinct values: the kept ones are forgotten past their limit, the answers stay the same.
    for (let i = 0; i < 2500; i++)
      expect(mediaOf({ 'content-type': `text/x-${i % 1200}; q=1` }, '')).toBe(`text/x-${i % 1200}`);
  });
});
