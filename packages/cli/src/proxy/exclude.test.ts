import { describe, expect, it } from 'vitest';
import { compileGlobs } from './exclude.js';

describe('compileGlobs', () => {
  it('matches exact paths, one-segment stars and any-depth double stars', () => {
    const excluded = compileGlobs(['/health', '/static/**', '/api/*/ping', '/v?.json']);
    expect(excluded('/health')).toBe(true);
    expect(excluded('/healthz')).toBe(false);
    expect(excluded('/static')).toBe(true);
    expect(excluded('/static/css/site.css')).toBe(true);
    expect(excluded('/staticky')).toBe(false);
    expect(excluded('/api/users/ping')).toBe(true);
    expect(excluded('/api/users/7/ping')).toBe(false);
    expect(excluded('/v1.json')).toBe(true);
    expect(excluded('/v1xjson')).toBe(false);
  });

  it('excludes nothing without patterns and refuses a glob that is not a path', () => {
    expect(compileGlobs([])('/anything')).toBe(false);
    expect(() => compileGlobs(['health'])).toThrow(/begin with \//);
  });
});
