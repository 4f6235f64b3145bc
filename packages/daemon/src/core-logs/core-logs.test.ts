import { contract } from '@tapline/shared';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createSource,
  expectError,
  manualClock,
  MISSING_ID,
  raw,
  rawJson,
  composeBody,
  type Harness,
  startHarness,
} from '@tapline/testkit/daemon';

describe('core logs (spec 4.2 and the write extension)', () => {
  let h: Harness;
  const clock = manualClock('2026-07-07T07:07:07.007Z');
  beforeEach(async () => {
    clock.set('2026-07-07T07:07:07.007Z');
    h = await startHarness({ clock });
  });
  afterEach(() => h.close());

  it('GET answers {statusCode: 200, data, meta}, newest first', async () => {
    const { client, token } = await h.user();
    const source = await createSource(client);
    const first = await client.call(contract.createCoreLog, {
      params: { trafficSourceId: source.id },
      body: { title: 'first' },
    });
    clock.advance(1);
    const second = await client.call(contract.createCoreLog, {
      params: { trafficSourceId: source.id },
      body: { title: 'second' },
    });
    const answer = await raw(h, 'GET', `/core-log/${source.id}`, { token });
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({
      statusCode: 200,
      data: [second.data, first.data],
      meta: { total: 2, page: 1, limit: 10 },
    });
  });

  it('GET answers the empty list with statusCode 200', async () => {
    const { client, token } = await h.user();
    const source = await createSource(client);
    expect((await raw(h, 'GET', `/core-log/${source.id}`, { token })).json).toEqual({
      statusCode: 200,
      data: [],
      meta: { total: 0, page: 1, limit: 10 },
    });
  });

  it('GET 400 is exactly {statusCode, error: "trafficSourceId must be a valid UUID", code} (plus issues)', async () => {
    const { token } = await h.user();
    for (const id of [
      'not-a-uuid',
      '123',
      '01a1fc8d-93a2-767e-92f3-e5a71388f88',
      'zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz',
    ]) {
      const answer = await raw(h, 'GET', `/core-log/${id}`, { token });
      expect(answer.status, id).toBe(400);
      const body = answer.json as Record<string, unknown>;
      expect({ statusCode: body.statusCode, error: body.error, code: body.code }).toEqual({
        statusCode: 400,
        error: 'trafficSourceId must be a valid UUID',
        code: 'validation_failed',
      });
      expect(
        Object.keys(body)
          .filter((k) => k !== 'issues')
          .sort(),
      ).toEqual(['code', 'error', 'statusCode']);
    }
  });

  it('GET 404 is exactly {statusCode: 404, error: "Traffic Source not found", code: "source_not_found"}', async () => {
    const { token } = await h.user();
    const answer = await raw(h, 'GET', `/core-log/${MISSING_ID}`, { token });
    expect(answer.status).toBe(404);
    expect(answer.json).toEqual({ statusCode: 404, error: 'Traffic Source not found', code: 'source_not_found' });
  });

  it('GET 500 is exactly {statusCode: 500, error: "Internal Server Error", code: "internal"}', async () => {
    const { client, token } = await h.user();
    const source = await createSource(client);
    await sql`drop table core_logs`.execute(h.deps.db);
    const answer = await raw(h, 'GET', `/core-log/${source.id}`, { token });
    expect(answer.status).toBe(500);
    expect(answer.json).toEqual({ statusCode: 500, error: 'Internal Server Error', code: 'internal' });
  });

  it('GET 400 without a token, 401 with a bad one, 403 for another user', async () => {
    const owner = await h.user();
    const stranger = await h.user();
    const source = await createSource(owner.client);
    expect((await raw(h, 'GET', `/core-log/${source.id}`)).json).toEqual({
      statusCode: 400,
      error: 'Authentication token missing',
      code: 'token_missing',
    });
    expect((await raw(h, 'GET', `/core-log/${source.id}`, { token: 'x.y.z' })).json).toEqual({
      statusCode: 401,
      error: 'Invalid token',
      code: 'token_invalid',
    });
    expect((await raw(h, 'GET', `/core-log/${source.id}`, { token: stranger.token })).json).toEqual({
      statusCode: 403,
      error: 'Forbidden',
      code: 'forbidden',
    });
  });

  it('POST answers 201 {statusCode: 201, data}; text fields default to "" and httpTrafficId to null', async () => {
    const { client, token } = await h.user();
    const source = await createSource(client);
    const answer = await rawJson(h, 'POST', `/core-log/${source.id}`, token, { title: '  boom  ' });
    expect(answer.status).toBe(201);
    expect(answer.json).toEqual({
      statusCode: 201,
      data: {
        // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- vitest's asymmetric matchers are typed `any`
        id: expect.any(String),
        title: 'boom',
        description: '',
        source: '',
        layer: '',
        stack: '',
        createdAt: '2026-07-07T07:07:07.007Z',
        httpTrafficId: null,
      },
    });
  });

  it('POST keeps every field and ties the log to a traffic entry of the same source', async () => {
    const { client } = await h.user();
    const source = await createSource(client);
    const record = await client.call(contract.composeRecord, {
      params: { trafficSourceId: source.id },
      body: composeBody(source.id, { status: 500 }),
    });
    const body = {
      title: 'TypeError',
      description: 'x is undefined',
      source: 'api-server',
      layer: 'Database',
      stack: 'TypeError: x\n    at f (a.js:1:1)',
      httpTrafficId: record.id,
    };
    const created = await client.call(contract.createCoreLog, { params: { trafficSourceId: source.id }, body });
    expect(created.data).toMatchObject(body);
    const listed = await client.call(contract.listCoreLogs, { params: { trafficSourceId: source.id } });
    expect(listed.data).toEqual([created.data]);
  });

  it('POST validates its body', async () => {
    const { client, token } = await h.user();
    const source = await createSource(client);
    const other = await createSource(client);
    const foreign = await client.call(contract.composeRecord, {
      params: { trafficSourceId: other.id },
      body: composeBody(other.id),
    });
    const bad: Array<[unknown, string]> = [
      [{}, 'title'],
      [{ title: '' }, 'title'],
      [{ title: '   ' }, 'title'],
      [{ title: 'x'.repeat(501) }, 'title'],
      [{ title: 5 }, 'title'],
      [{ title: 't', layer: 'x'.repeat(101) }, 'layer'],
      [{ title: 't', source: 'x'.repeat(201) }, 'source'],
      [{ title: 't', description: 7 }, 'description'],
      [{ title: 't', httpTrafficId: 'nope' }, 'httpTrafficId'],
      [{ title: 't', httpTrafficId: MISSING_ID }, 'httpTrafficId'],
      [{ title: 't', httpTrafficId: foreign.id }, 'httpTrafficId'],
    ];
    for (const [body, path] of bad) {
      const answer = await rawJson(h, 'POST', `/core-log/${source.id}`, token, body);
      expect(answer.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect((answer.json as { issues: { path: string }[] }).issues.map((i) => i.path)).toContain(path);
    }
    await expectError(
      client.call(contract.createCoreLog, { params: { trafficSourceId: MISSING_ID }, body: { title: 't' } }),
      404,
      'Traffic Source not found',
    );
    await expectError(
      client.call(contract.createCoreLog, { params: { trafficSourceId: 'x' }, body: { title: 't' } }),
      400,
      'trafficSourceId must be a valid UUID',
    );
  });

  it('deleting the source removes its core logs', async () => {
    const { client } = await h.user();
    const source = await createSource(client);
    await client.call(contract.createCoreLog, { params: { trafficSourceId: source.id }, body: { title: 't' } });
    await client.call(contract.deleteTrafficSource, { params: { trafficSourceId: source.id } });
    await expectError(
      client.call(contract.listCoreLogs, { params: { trafficSourceId: source.id } }),
      404,
      'Traffic Source not found',
    );
    expect(await h.deps.db.selectFrom('core_logs').selectAll().execute()).toEqual([]);
  });
});
