import { describe, expect, it } from 'vitest';
import { exchangeIdOf } from '../http-traffic/exchange-id.js';
import type { PreparedRecord } from './prepare.js';
import { rowsOf } from './rows.js';

const record: PreparedRecord = {
  domain: 'api.example.com',
  pathname: '/users/42',
  status: 404,
  method: 'GET',
  level: 'WARNING',
  protocol: 'HTTPS',
  elapsedTime: 12.5,
  trafficUserId: null,
  requestHeaders: '{}',
  requestBody: null,
  queryParams: '{}',
  responseHeaders: '{}',
  responseBody: '{"error":"no such user"}',
  startedAt: null,
  route: '/users/:id',
};
const filed = { domainId: 'd1', pathnameId: 'p1', route: { id: 'r1', template: '/users/{id}' } };
const RECEIVED = '2026-05-05T12:00:00.000Z';

describe('a prepared record as its rows', () => {
  it('files the row, the entry and the route numbers under the same ids and time', () => {
    const { row, entry, stat } = rowsOf('s1', record, filed, RECEIVED, 'e1', true);
    expect(row).toMatchObject({
      id: 'e1',
      traffic_source_id: 's1',
      domain_id: 'd1',
      pathname_id: 'p1',
      route: '/users/:id',
      route_id: 'r1',
      created_at: RECEIVED,
      request_id: null,
      response_id: null,
    });
    expect(entry).toMatchObject({
      id: 'e1',
      createdAt: RECEIVED,
      route: '/users/{id}',
      requestId: exchangeIdOf('e1', 'request'),
      responseId: exchangeIdOf('e1', 'response'),
    });
    expect(entry).not.toHaveProperty('trafficUserId');
    expect(stat).toEqual({
      sourceId: 's1',
      routeId: 'r1',
      method: 'GET',
      domainId: 'd1',
      createdAt: RECEIVED,
      status: 404,
      elapsedTime: 12.5,
      requestBytes: 0,
      responseBytes: 24,
    });
  });

  it('takes the client’s start time when it sent one (decisions §17.1), and counts nothing with the statistics off', () => {
    const started = '2026-05-05T11:59:58.000Z';
    const { row, entry, stat } = rowsOf(
      's1',
      { ...record, startedAt: started, trafficUserId: 'u-7' },
      filed,
      RECEIVED,
      'e2',
      false,
    );
    expect([row.created_at, entry.createdAt, entry.trafficUserId]).toEqual([started, started, 'u-7']);
    expect(stat).toBeUndefined();
  });
});
