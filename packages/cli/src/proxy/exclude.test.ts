import { describe, expect, it } from 'vitest';
import { FilterSyntaxError, type RecordBody } from '@tapline/shared';
import { compileExclude, compileGlobs } from './exclude.js';

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

describe('compileExclude', () => {
  const body = (over: Partial<RecordBody> = {}): RecordBody => ({
    domainUrl: 'http://localhost:3000',
    pathnameUrl: '/assets/app.js',
    status: 200,
    protocol: 'HTTP',
    method: 'GET',
    elapsedTime: 3,
    requestHeaders: { 'user-agent': 'kube-probe/1.29' },
    requestBody: null,
    queryParams: {},
    responseHeaders: {},
    responseBody: null,
    ...over,
  });

  it('splits path globs from filter expressions and tests the latter on the record', () => {
    const exclusion = compileExclude(['/health', 'status<400 and path^=/assets', 'header.user-agent~kube-probe']);
    expect(exclusion.path('/health')).toBe(true);
    expect(exclusion.path('/assets/app.js')).toBe(false);
    expect(exclusion.record?.(body())).toBe(true);
    expect(exclusion.record?.(body({ status: 404, requestHeaders: {} }))).toBe(false);
    expect(exclusion.record?.(body({ pathnameUrl: '/api', requestHeaders: { 'user-agent': 'curl' } }))).toBe(false);
    expect(exclusion.record?.(body({ pathnameUrl: '/api' }))).toBe(true);
  });

  it('reads a level and a domain as the daemon stores them (docs/decisions.md §5.6, §5.7)', () => {
    const warnings = compileExclude(['level=WARNING']);
    expect([399, 400, 499, 500].map((status) => warnings.record?.(body({ status })))).toEqual([
      false,
      true,
      true,
      false,
    ]);
    expect(compileExclude(['level=FATAL']).record?.(body({ status: 500 }))).toBe(true);
    expect(
      compileExclude(['domain=shop.example.com']).record?.(body({ domainUrl: 'https://Shop.Example.com:443' })),
    ).toBe(true);
  });

  it('has no record test without filter expressions, and refuses one that does not parse', () => {
    expect(compileExclude(['/static/**']).record).toBeNull();
    expect(() => compileExclude(['status<<400'])).toThrow(FilterSyntaxError);
  });
});
