import { contract, type TaplineClient } from '@tapline/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  composeBody,
  createSource,
  type Harness,
  manualClock,
  MISSING_ID,
  rawJson,
  startHarness,
} from '@tapline/testkit/daemon';

interface HarEntry {
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    headers: { name: string; value: string }[];
    queryString: unknown[];
    postData?: { mimeType: string; text: string };
  };
  response: { status: number; statusText: string; content: { size: number; mimeType: string; text?: string } };
  _tapline: { id: string; level: string };
}
interface Har {
  log: { version: string; creator: { name: string }; entries: HarEntry[] };
}

describe('GET /http-traffic/:trafficSourceId/export.har', () => {
  const clock = manualClock('2026-05-05T05:05:05.000Z');
  let h: Harness;
  let token: string;
  let client: TaplineClient;
  let sourceId: string;
  beforeEach(async () => {
    h = await startHarness({ clock });
    ({ token, client } = await h.user());
    sourceId = (await createSource(client)).id;
  });
  afterEach(() => h.close());

  const exportHar = (query = '') => rawJson(h, 'GET', `/http-traffic/${sourceId}/export.har${query}`, token);

  it('streams every match, oldest first, across many pages, with bodies and redacted values as stored', async () => {
    const at = (i: number) => new Date(Date.parse('2026-05-05T00:00:00.000Z') + i * 1000).toISOString();
    // Sent newest first: the export orders by createdAt, not by arrival.
    const items = Array.from({ length: 450 }, (_, i) =>
      composeBody(sourceId, {
        startedAt: at(449 - i),
        status: i % 3 === 0 ? 503 : 200,
        method: 'post',
        pathnameUrl: `/orders/${449 - i}`,
        queryParams: { page: '2', tag: ['a', 'b'] },
        requestHeaders: { authorization: 'Bearer secret', 'content-type': 'application/json' },
        requestBody: { item: 449 - i, password: 'hunter2' },
        responseBody: 'plain text',
        responseHeaders: { 'content-type': 'text/plain' },
      }),
    );
    await client.call(contract.composeBatch, { params: { trafficSourceId: sourceId }, body: items });
    const answer = await exportHar();
    expect(answer.status, answer.text.slice(0, 300)).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    const har = answer.json as Har;
    expect(har.log).toMatchObject({ version: '1.2', creator: { name: 'Tapline' } });
    expect(har.log.entries).toHaveLength(450);
    expect(har.log.entries.map((e) => e.startedDateTime)).toEqual(Array.from({ length: 450 }, (_, i) => at(i)));
    const [first] = har.log.entries;
    expect(first).toMatchObject({
      time: 12.5,
      request: {
        method: 'POST',
        url: 'https://shop.example.com/orders/0?page=2&tag=a&tag=b',
        headers: [
          { name: 'authorization', value: '[REDACTED]' },
          { name: 'content-type', value: 'application/json' },
        ],
        queryString: [
          { name: 'page', value: '2' },
          { name: 'tag', value: 'a' },
          { name: 'tag', value: 'b' },
        ],
        postData: { mimeType: 'application/json', text: '{"item":0,"password":"[REDACTED]"}' },
      },
      response: { content: { mimeType: 'text/plain', text: 'plain text', size: 10 } },
    });
    const fatal = (await exportHar('?status=5xx&q=' + encodeURIComponent('path~"/orders/1"'))).json as Har;
    expect(fatal.log.entries.length).toBeGreaterThan(0);
    for (const e of fatal.log.entries)
      expect(e).toMatchObject({
        response: { status: 503, statusText: 'Service Unavailable' },
        _tapline: { level: 'FATAL' },
      });
    const window = (await exportHar(`?startDate=${at(10)}&endDate=${at(12)}`)).json as Har;
    expect(window.log.entries.map((e) => e.startedDateTime)).toEqual([at(10), at(11), at(12)]);
  });

  it('an empty export is a valid document; bad filters 400, unknown source 404, another user 403', async () => {
    expect((await exportHar()).json).toMatchObject({ log: { version: '1.2', entries: [] } });
    expect((await exportHar('?status=abc')).status).toBe(400);
    expect((await exportHar('?q=' + encodeURIComponent('method='))).status).toBe(400);
    expect((await rawJson(h, 'GET', `/http-traffic/${MISSING_ID}/export.har`, token)).status).toBe(404);
    const other = await h.user('other@example.com');
    expect((await rawJson(h, 'GET', `/http-traffic/${sourceId}/export.har`, other.token)).status).toBe(403);
    await client.call(contract.composeRecord, { params: { trafficSourceId: sourceId }, body: composeBody(sourceId) });
    // The one-record route still answers for real ids.
    const [entry] = (await client.call(contract.listTraffic, { params: { trafficSourceId: sourceId }, query: {} }))
      .data;
    expect((await rawJson(h, 'GET', `/http-traffic/${sourceId}/${entry?.id ?? ''}`, token)).status).toBe(200);
  });
});
