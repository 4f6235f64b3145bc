import { describe, expect, it } from 'vitest';
import { domainOf, levelOf, MAX_PATHNAME, pathnameOf } from './record-rules.js';
import { ComposeRecord } from './schemas/http-traffic.js';

describe('levelOf (docs/decisions.md §5.6), at each edge', () => {
  it.each([
    [100, 'INFO'],
    [399, 'INFO'],
    [400, 'WARNING'],
    [499, 'WARNING'],
    [500, 'FATAL'],
    [599, 'FATAL'],
  ])('%i is %s', (status, level) => {
    expect(levelOf(status)).toBe(level);
  });
});

describe('domainOf (docs/decisions.md §5.7)', () => {
  it.each([
    ['https://Shop.Example.com:8443/', 'shop.example.com:8443'],
    ['https://shop.example.com:443', 'shop.example.com'],
    ['https://shop.example.com:444', 'shop.example.com:444'],
    ['http://shop.example.com:80/x?y=1', 'shop.example.com'],
    ['http://shop.example.com:443', 'shop.example.com:443'],
    ['http://127.0.0.1:3000', '127.0.0.1:3000'],
  ])('%s is %s', (url, domain) => {
    expect(domainOf(url)).toBe(domain);
  });
});

describe('pathnameOf (docs/decisions.md §5.8)', () => {
  it('leaves the query out and keeps the path as it is spelt', () => {
    expect(pathnameOf(new URL('https://a.example/API/Orders/?page=2#top'))).toBe('/API/Orders/');
    expect(pathnameOf(new URL('https://a.example'))).toBe('/');
  });

  it(`keeps ${MAX_PATHNAME} characters and cuts the one past them, which the schema would refuse`, () => {
    const at = `/${'a'.repeat(MAX_PATHNAME - 1)}`;
    expect(pathnameOf(new URL(at, 'https://a.example'))).toBe(at);
    expect(pathnameOf(new URL(`${at}b`, 'https://a.example'))).toBe(at);
    const body = {
      domainUrl: 'https://a.example',
      trafficSourceId: '00000000-0000-7000-8000-000000000000',
      status: 200,
      protocol: 'HTTPS',
      method: 'GET',
      elapsedTime: 1,
      requestHeaders: {},
      queryParams: {},
      responseHeaders: {},
    };
    expect(ComposeRecord.safeParse({ ...body, pathnameUrl: at }).success).toBe(true);
    expect(ComposeRecord.safeParse({ ...body, pathnameUrl: `${at}b` }).success).toBe(false);
  });
});
