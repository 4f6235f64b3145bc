import type { HttpTrafficRecord } from '@tapline/shared';
import { createColors } from 'picocolors';
import { describe, expect, it } from 'vitest';
import { diffRecords } from '@tapline/shared';
import { diffLines } from './render.js';

/** Two exchanges of one endpoint, a minute apart: the second slower, failing, with a price changed. */
const A: HttpTrafficRecord = {
  id: '019a4c2e-7b1d-7c3e-9f00-3a1b2c3d4e5f',
  status: 200,
  method: 'GET',
  level: 'INFO',
  elapsedTime: 12,
  createdAt: '2026-11-22T10:00:00.000Z',
  domain: 'shop.example.com',
  pathname: '/api/cart',
  protocol: 'HTTPS',
  trafficSourceId: '019a4c2e-0000-7000-8000-000000000001',
  request: { headers: { Accept: 'application/json', 'x-trace': 'abc' }, body: null, queryParams: { page: '1' } },
  response: {
    headers: { 'content-type': 'application/json' },
    body: {
      items: [
        { sku: 'a', price: 3 },
        { sku: 'b', price: 5 },
      ],
      total: 8,
    },
  },
};
const B: HttpTrafficRecord = {
  ...A,
  id: '019a4c2f-11aa-7c3e-9f00-3a1b2c3d4e60',
  createdAt: '2026-11-22T10:01:00.000Z',
  status: 500,
  level: 'FATAL',
  elapsedTime: 340,
  request: { headers: { accept: 'application/json' }, body: null, queryParams: { page: '2' } },
  response: {
    headers: { 'content-type': 'application/json', 'retry-after': '30' },
    body: {
      items: [
        { sku: 'a', price: 3 },
        { sku: 'b', price: 6 },
        { sku: 'c', price: 1 },
      ],
      total: 8,
    },
  },
};

describe('diffRecords', () => {
  it('names each difference by path, bodies compared as JSON, not by line', () => {
    const byPath = Object.fromEntries(diffRecords(A, B).map((d) => [d.path, d]));
    expect(Object.keys(byPath).sort()).toEqual(
      [
        'elapsedTime',
        'level',
        'request.headers["x-trace"]',
        'request.query.page',
        'response.body.items[1].price',
        'response.body.items[2]',
        'response.headers["retry-after"]',
        'status',
      ].sort(),
    );
    expect(byPath.status).toMatchObject({ kind: 'changed', a: 200, b: 500 });
    expect(byPath['response.body.items[1].price']).toMatchObject({
      kind: 'changed',
      a: 5,
      b: 6,
      segments: ['response', 'body', 'items', 1, 'price'],
    });
    expect(byPath['response.body.items[2]']).toMatchObject({ kind: 'added', b: { sku: 'c', price: 1 } });
    expect(byPath['request.headers["x-trace"]']).toMatchObject({ kind: 'removed', a: 'abc' });
  });

  it('finds nothing between an exchange and itself, header case and id and time aside', () => {
    expect(
      diffRecords(A, {
        ...A,
        id: B.id,
        createdAt: B.createdAt,
        request: { ...A.request, headers: { accept: 'application/json', 'X-Trace': 'abc' } },
      }),
    ).toEqual([]);
  });

  it('compares a method, URL or body of another kind as one change', () => {
    const other: HttpTrafficRecord = {
      ...A,
      method: 'POST',
      pathname: '/api/orders',
      response: { ...A.response, body: 'Bad Gateway' },
    };
    expect(diffRecords(A, other).map((d) => [d.path, d.kind])).toEqual([
      ['method', 'changed'],
      ['url', 'changed'],
      ['response.body', 'changed'],
    ]);
  });

  it('prints aligned lines, marked and coloured by kind, timing as a change', () => {
    const plain = diffLines(diffRecords(A, B), { colors: createColors(false), width: Number.POSITIVE_INFINITY });
    expect(plain).toContain('~ elapsedTime                      12ms -> 340ms (+328ms)');
    expect(plain).toContain('+ response.body.items[2]           {"sku":"c","price":1}');
    expect(plain).toContain('- request.headers["x-trace"]       "abc"');
    const coloured = diffLines(diffRecords(A, B), { colors: createColors(true), width: 60 });
    expect(coloured.find((l) => l.includes('status'))).toMatch(/^\u001b\[33m~ status/);
    expect(coloured.find((l) => l.includes('retry-after'))).toMatch(/^\u001b\[32m\+/);
    expect(coloured.every((l) => l.replace(/\u001b\[\d+m/g, '').length <= 60)).toBe(true);
  });
});
