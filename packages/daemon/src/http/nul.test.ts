import { contract } from '@tapline/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  composeBody,
  createSource,
  type Harness,
  raw,
  rawJson,
  startHarness,
  type TestUser,
} from '@tapline/testkit/daemon';

/**
 * U+0000 in text: PostgreSQL's text cannot hold it, SQLite's can. Both engines answer alike: a
 * 400 naming the field wherever it would be stored as text, never a 500; bodies, stored as JSON
 * text where it is an escape, keep it.
 */
describe('U+0000 (NUL) in what a client sends', () => {
  let h: Harness;
  let user: TestUser;
  let sourceId: string;
  const compose = (over: Record<string, unknown>) =>
    rawJson(h, 'POST', `/http-traffic-record/${sourceId}`, user.token, composeBody(sourceId, over));
  const issue = (answer: { status: number; json: unknown }) => ({
    status: answer.status,
    error: (answer.json as { error: string }).error,
  });

  beforeAll(async () => {
    h = await startHarness();
    user = await h.user();
    sourceId = (await createSource(user.client)).id;
  });
  afterAll(() => h.close());

  it('is a 400 naming the field in stored text, and nothing is stored', async () => {
    expect(issue(await compose({ pathnameUrl: '/a\u0000b' }))).toEqual({
      status: 400,
      error: 'pathnameUrl must not contain U+0000 (NUL)',
    });
    expect(issue(await compose({ requestHeaders: { 'x-a': ['ok', 'a\u0000'] } }))).toEqual({
      status: 400,
      error: 'requestHeaders.x-a: x-a must not contain U+0000 (NUL)',
    });
    expect(issue(await compose({ queryParams: { 'k\u0000': 'v' } }))).toEqual({
      status: 400,
      error: 'queryParams: a name must not contain U+0000 (NUL)',
    });
    expect(issue(await rawJson(h, 'POST', `/core-log/${sourceId}`, user.token, { title: 't\u0000' }))).toEqual({
      status: 400,
      error: 'title must not contain U+0000 (NUL)',
    });
    expect(
      issue(
        await rawJson(h, 'POST', '/traffic-source', user.token, { name: 'n\u0000', trafficDomain: 'shop.example.com' }),
      ),
    ).toEqual({
      status: 400,
      error: 'name must not contain U+0000 (NUL)',
    });
    expect(
      issue(
        await rawJson(h, 'POST', '/auth/token', undefined, { email: 'a\u0000@example.com', password: 'secret-pass' }),
      ),
    ).toEqual({
      status: 400,
      error: 'email must not contain U+0000 (NUL)',
    });
    const q = await raw(h, 'GET', `/http-traffic/${sourceId}?q=${encodeURIComponent('path~"\u0000"')}`, {
      token: user.token,
    });
    expect(issue(q)).toEqual({ status: 400, error: 'q must not contain U+0000 (NUL)' });
    expect((await user.client.call(contract.listTraffic, { params: { trafficSourceId: sourceId } })).meta.total).toBe(
      0,
    );
  });

  it('is kept in bodies, and filters still read every entry', async () => {
    const sent = await compose({
      requestBody: { note: 'a\u0000b' },
      responseBody: 'x\u0000',
      requestHeaders: { 'x-trace': 'abc' },
    });
    expect(sent.status).toBe(201);
    const id = (sent.json as { id: string }).id;
    const record = await user.client.call(contract.getTraffic, { params: { trafficSourceId: sourceId, id } });
    expect(record.request.body).toEqual({ note: 'a\u0000b' });
    expect(record.response.body).toBe('x\u0000');
    for (const q of ['header.x-trace~b', 'body~"a"']) {
      expect(
        (
          await user.client.call(contract.listTraffic, { params: { trafficSourceId: sourceId }, query: { q } })
        ).data.map((e) => e.id),
      ).toEqual([id]);
    }
  });
});
