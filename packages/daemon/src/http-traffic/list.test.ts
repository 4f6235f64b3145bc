import { contract, type HttpTraffic, type HttpTrafficRecord, type TaplineClient } from '@tapline/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

/** Five entries at known instants; names are the keys the expectations use. */
const ENTRIES = [
  {
    key: 't0',
    at: '2026-01-01T00:00:00.000Z',
    domainUrl: 'https://a.example.com',
    pathnameUrl: '/x',
    method: 'GET',
    status: 200,
  },
  {
    key: 't1',
    at: '2026-01-01T12:00:00.000Z',
    domainUrl: 'https://a.example.com',
    pathnameUrl: '/y',
    method: 'POST',
    status: 404,
  },
  {
    key: 't2',
    at: '2026-01-02T00:00:00.000Z',
    domainUrl: 'https://b.example.com',
    pathnameUrl: '/x',
    method: 'PUT',
    status: 500,
  },
  {
    key: 't3',
    at: '2026-01-02T00:00:00.001Z',
    domainUrl: 'https://a.example.com',
    pathnameUrl: '/x',
    method: 'DELETE',
    status: 201,
  },
  {
    key: 't4',
    at: '2026-01-03T10:00:00.000Z',
    domainUrl: 'https://b.example.com',
    pathnameUrl: '/z',
    method: 'PATCH',
    status: 503,
  },
] as const;
type Key = (typeof ENTRIES)[number]['key'];
const TRAFFIC_USER = '0191c6f4-55e5-7b6e-8c1a-3f0d2c1b4a59';

describe('GET /http-traffic/:trafficSourceId', () => {
  let h: Harness;
  let token: string;
  let client: TaplineClient;
  let sourceId: string;
  const clock = manualClock();
  const idOf = new Map<string, Key>();
  const records = new Map<Key, HttpTrafficRecord>();

  beforeAll(async () => {
    h = await startHarness({ clock });
    const user = await h.user();
    ({ token, client } = user);
    sourceId = (await createSource(client, 'main')).id;
    const other = await createSource(client, 'other');
    for (const { key, at, ...fields } of ENTRIES) {
      clock.set(at);
      const record = await client.call(contract.composeRecord, {
        params: { trafficSourceId: sourceId },
        body: composeBody(sourceId, { ...fields, ...(key === 't4' ? { trafficUserId: TRAFFIC_USER } : {}) }),
      });
      idOf.set(record.id, key);
      records.set(key, record);
      // The same traffic in another source of the same user never shows up here.
      await client.call(contract.composeRecord, {
        params: { trafficSourceId: other.id },
        body: composeBody(other.id, fields),
      });
    }
  });
  afterAll(() => h.close());

  async function keys(query: Record<string, string>): Promise<Key[]> {
    const answer = await rawJson(
      h,
      'GET',
      `/http-traffic/${sourceId}?${new URLSearchParams({ limit: '100', ...query }).toString().toString()}`,
      token,
    );
    expect(answer.status, `${JSON.stringify(query)}: ${answer.text}`).toBe(200);
    const body = answer.json as { data: HttpTraffic[]; meta: { total: number } };
    expect(body.meta.total).toBe(body.data.length);
    return body.data.map((entry) => idOf.get(entry.id) ?? (`foreign ${entry.id}` as Key));
  }
  const entryOf = (key: Key) => {
    const record = records.get(key);
    if (!record) throw new Error(key);
    return record;
  };
  async function idsOf(key: Key) {
    const { data } = await client.call(contract.listTraffic, {
      params: { trafficSourceId: sourceId },
      query: { limit: 100 },
    });
    const entry = data.find((e) => e.id === entryOf(key).id);
    if (!entry) throw new Error(key);
    return entry;
  }

  it('lists every entry of the source, newest first', async () => {
    expect(await keys({})).toEqual(['t4', 't3', 't2', 't1', 't0']);
  });

  it('each entry has the spec fields plus domain, pathname and protocol; trafficUserId is absent, never null', async () => {
    const answer = await raw(h, 'GET', `/http-traffic/${sourceId}`, { token });
    const { data } = answer.json as { data: Array<Record<string, unknown>> };
    const base = [
      'id',
      'status',
      'method',
      'level',
      'elapsedTime',
      'trafficSourceId',
      'domainId',
      'pathnameId',
      'requestId',
      'responseId',
      'createdAt',
      'domain',
      'pathname',
      'protocol',
      'route',
    ];
    for (const entry of data) {
      const key = idOf.get(entry.id as string);
      expect(Object.keys(entry).sort(), key).toEqual((key === 't4' ? [...base, 'trafficUserId'] : base).sort());
    }
    expect(data[0]).toMatchObject({
      trafficUserId: TRAFFIC_USER,
      status: 503,
      method: 'PATCH',
      level: 'FATAL',
      domain: 'b.example.com',
      pathname: '/z',
      protocol: 'HTTPS',
      createdAt: '2026-01-03T10:00:00.000Z',
      elapsedTime: 12.5,
      trafficSourceId: sourceId,
    });
    expect(answer.text).not.toContain('null');
  });

  describe('dates are inclusive; a bare date is midnight UTC', () => {
    it.each([
      [{ startDate: '2026-01-02T00:00:00.000Z' }, ['t4', 't3', 't2']],
      [{ startDate: '2026-01-02T00:00:00.001Z' }, ['t4', 't3']],
      [{ endDate: '2026-01-02T00:00:00.000Z' }, ['t2', 't1', 't0']],
      [{ endDate: '2026-01-01T23:59:59.999Z' }, ['t1', 't0']],
      [{ startDate: '2026-01-02T00:00:00.000Z', endDate: '2026-01-02T00:00:00.000Z' }, ['t2']],
      [{ startDate: '2026-01-01T00:00:00.000Z', endDate: '2026-01-03T10:00:00.000Z' }, ['t4', 't3', 't2', 't1', 't0']],
      [{ startDate: '2026-01-02' }, ['t4', 't3', 't2']],
      [{ endDate: '2026-01-02' }, ['t2', 't1', 't0']],
      [{ startDate: '2026-01-01', endDate: '2026-01-01' }, ['t0']],
      [{ startDate: '2026-01-02T01:00:00+01:00' }, ['t4', 't3', 't2']],
      [{ startDate: '2026-01-02T00:00:00Z' }, ['t4', 't3', 't2']],
      [{ startDate: '2027-01-01' }, []],
    ])('%j', async (query, expected) => {
      expect(await keys(query)).toEqual(expected);
    });

    it('start after end is a 400', async () => {
      for (const query of [
        { startDate: '2026-01-03', endDate: '2026-01-02' },
        { startDate: '2026-01-02T00:00:00.001Z', endDate: '2026-01-02T00:00:00.000Z' },
      ]) {
        const answer = await rawJson(
          h,
          'GET',
          `/http-traffic/${sourceId}?${new URLSearchParams(query).toString()}`,
          token,
        );
        expect(answer.status).toBe(400);
        expect((answer.json as { issues: { path: string }[] }).issues[0]?.path).toBe('startDate');
      }
    });
  });

  it('filters by domainId and pathnameId', async () => {
    const a = (await idsOf('t0')).domainId;
    const b = (await idsOf('t2')).domainId;
    expect(await keys({ domainId: a })).toEqual(['t3', 't1', 't0']);
    expect(await keys({ domainId: b })).toEqual(['t4', 't2']);
    const ax = (await idsOf('t0')).pathnameId;
    const bx = (await idsOf('t2')).pathnameId;
    expect(bx).not.toBe(ax);
    expect(await keys({ pathnameId: ax })).toEqual(['t3', 't0']);
    expect(await keys({ pathnameId: bx })).toEqual(['t2']);
    expect(await keys({ domainId: MISSING_ID })).toEqual([]);
  });

  it('filters by method, in any case', async () => {
    expect(await keys({ method: 'POST' })).toEqual(['t1']);
    expect(await keys({ method: 'post' })).toEqual(['t1']);
    expect(await keys({ method: 'Delete' })).toEqual(['t3']);
    expect(await keys({ method: 'get' })).toEqual(['t0']);
  });

  it('filters by exact status and by status class', async () => {
    expect(await keys({ status: '500' })).toEqual(['t2']);
    expect(await keys({ status: '404' })).toEqual(['t1']);
    expect(await keys({ status: '302' })).toEqual([]);
    expect(await keys({ status: '5xx' })).toEqual(['t4', 't2']);
    expect(await keys({ status: '5XX' })).toEqual(['t4', 't2']);
    expect(await keys({ status: '2xx' })).toEqual(['t3', 't0']);
    expect(await keys({ status: '4xx' })).toEqual(['t1']);
    expect(await keys({ status: '1xx' })).toEqual([]);
  });

  it('filters by level, in any case', async () => {
    expect(await keys({ level: 'FATAL' })).toEqual(['t4', 't2']);
    expect(await keys({ level: 'fatal' })).toEqual(['t4', 't2']);
    expect(await keys({ level: 'Warning' })).toEqual(['t1']);
    expect(await keys({ level: 'info' })).toEqual(['t3', 't0']);
  });

  it('combines filters with AND', async () => {
    const a = (await idsOf('t0')).domainId;
    const b = (await idsOf('t2')).domainId;
    const ax = (await idsOf('t0')).pathnameId;
    expect(await keys({ domainId: a, level: 'info' })).toEqual(['t3', 't0']);
    expect(await keys({ domainId: a, level: 'info', method: 'delete' })).toEqual(['t3']);
    expect(await keys({ domainId: b, status: '5xx', startDate: '2026-01-03' })).toEqual(['t4']);
    expect(await keys({ pathnameId: ax, endDate: '2026-01-01T23:59:59.999Z' })).toEqual(['t0']);
    expect(await keys({ method: 'GET', level: 'FATAL' })).toEqual([]);
    expect(
      await keys({
        status: '2xx',
        startDate: '2026-01-02',
        endDate: '2026-01-02T00:00:00.001Z',
        domainId: a,
        pathnameId: ax,
        method: 'DELETE',
        level: 'INFO',
      }),
    ).toEqual(['t3']);
    expect(await keys({ domainId: a, pathnameId: (await idsOf('t2')).pathnameId })).toEqual([]);
  });

  it('paginates filtered results with the filtered total', async () => {
    const answer = await client.call(contract.listTraffic, {
      params: { trafficSourceId: sourceId },
      query: { level: 'FATAL', limit: 1, page: 2 },
    });
    expect(answer.data.map((e) => idOf.get(e.id))).toEqual(['t2']);
    expect(answer.meta).toEqual({ total: 2, page: 2, limit: 1 });
  });

  it.each([
    ['startDate', 'yesterday'],
    ['startDate', '2026-13-01'],
    ['startDate', '2026-02-30'],
    ['startDate', '2026-01-02T10:00:00'],
    ['startDate', '1767225600000'],
    ['endDate', 'x'],
    ['endDate', ''],
    ['domainId', 'abc'],
    ['domainId', ''],
    ['pathnameId', '123'],
    ['method', 'HEAD'],
    ['method', 'get,post'],
    ['method', ''],
    ['status', 'abc'],
    ['status', '2x'],
    ['status', '6xx'],
    ['status', '600'],
    ['status', '099'],
    ['status', '99'],
    ['status', '1000'],
    ['status', '200.0'],
    ['status', ''],
    ['level', 'debug'],
    ['level', 'error'],
    ['level', ''],
  ])('a bad %s (%j) is a 400, never an empty list', async (name, value) => {
    const answer = await raw(h, 'GET', `/http-traffic/${sourceId}?${name}=${encodeURIComponent(value)}`, { token });
    expect(answer.status, answer.text).toBe(400);
    expect((answer.json as { issues: { path: string }[] }).issues.map((i) => i.path)).toContain(name);
  });

  it('a filter given twice is a 400', async () => {
    const answer = await raw(h, 'GET', `/http-traffic/${sourceId}?method=GET&method=POST`, { token });
    expect(answer.status).toBe(400);
  });

  it('answers 400 for a bad source id and 404 for a missing source', async () => {
    await expectError(
      client.call(contract.listTraffic, { params: { trafficSourceId: 'abc' } }),
      400,
      'trafficSourceId must be a valid UUID',
    );
    await expectError(
      client.call(contract.listTraffic, { params: { trafficSourceId: MISSING_ID } }),
      404,
      'Traffic Source not found',
    );
  });

  describe('GET /http-traffic/:trafficSourceId/:id', () => {
    it('returns the whole record as composed', async () => {
      for (const key of ['t0', 't4'] as const) {
        const answer = await raw(h, 'GET', `/http-traffic/${sourceId}/${entryOf(key).id}`, { token });
        expect(answer.status).toBe(200);
        expect(answer.json).toEqual(entryOf(key));
      }
      const plain = (await raw(h, 'GET', `/http-traffic/${sourceId}/${entryOf('t0').id}`, { token })).json;
      expect(plain).not.toHaveProperty('trafficUserId');
    });

    it('404 for an id not in this source, 400 for a bad id', async () => {
      const other = (await client.call(contract.listTrafficSources)).data.find((s) => s.name === 'other');
      const foreign = (await client.call(contract.listTraffic, { params: { trafficSourceId: other?.id ?? '' } }))
        .data[0];
      expect(foreign).toBeDefined();
      const crossed = await raw(h, 'GET', `/http-traffic/${sourceId}/${foreign?.id}`, { token });
      expect(crossed.status).toBe(404);
      expect((await raw(h, 'GET', `/http-traffic/${sourceId}/${MISSING_ID}`, { token })).status).toBe(404);
      const bad = await raw(h, 'GET', `/http-traffic/${sourceId}/nope`, { token });
      expect(bad.status).toBe(400);
      expect((bad.json as { error: string }).error).toBe('id must be a valid UUID');
      await expectError(
        client.call(contract.getTraffic, { params: { trafficSourceId: MISSING_ID, id: entryOf('t0').id } }),
        404,
        'Traffic Source not found',
      );
    });
  });

  describe('GET /domains and GET /pathnames', () => {
    it('list the found-or-created domains, newest first', async () => {
      const answer = await raw(h, 'GET', `/domains/${sourceId}`, { token });
      expect(answer.status).toBe(200);
      const body = answer.json as { data: Array<Record<string, unknown>>; meta: unknown };
      expect(body.data.map((d) => d.value)).toEqual(['b.example.com', 'a.example.com']);
      expect(body.data.map((d) => Object.keys(d).sort())).toEqual([
        ['createdAt', 'id', 'value'],
        ['createdAt', 'id', 'value'],
      ]);
      expect(body.data[0]).toMatchObject({ id: (await idsOf('t2')).domainId, createdAt: '2026-01-02T00:00:00.000Z' });
      expect(body.meta).toEqual({ total: 2, page: 1, limit: 10 });
    });

    it('list the pathnames, all or of one domain', async () => {
      const all = await client.call(contract.listPathnames, { params: { trafficSourceId: sourceId } });
      expect(all.data.map((p) => p.value)).toEqual(['/z', '/x', '/y', '/x']);
      const b = (await idsOf('t2')).domainId;
      const ofB = await client.call(contract.listPathnames, {
        params: { trafficSourceId: sourceId },
        query: { domainId: b },
      });
      expect(ofB.data.map((p) => [p.value, p.domainId])).toEqual([
        ['/z', b],
        ['/x', b],
      ]);
      expect(ofB.meta.total).toBe(2);
      expect(ofB.data[1]?.id).toBe((await idsOf('t2')).pathnameId);
      await expectError(
        client.call(contract.listPathnames, { params: { trafficSourceId: sourceId }, query: { domainId: 'nope' } }),
        400,
      );
    });

    it('answer 400 and 404 for bad and missing sources', async () => {
      for (const e of [contract.listDomains, contract.listPathnames]) {
        await expectError(
          client.call(e, { params: { trafficSourceId: 'nope' } }),
          400,
          'trafficSourceId must be a valid UUID',
        );
        await expectError(client.call(e, { params: { trafficSourceId: MISSING_ID } }), 404, 'Traffic Source not found');
      }
    });
  });
});

describe('newest first within one millisecond', () => {
  it('orders entries composed at the same instant by insertion, newest first, stable across pages', async () => {
    const clock = manualClock('2026-06-01T00:00:00.000Z');
    const h = await startHarness({ clock });
    try {
      const { client } = await h.user();
      const source = await createSource(client);
      const ids: string[] = [];
      for (let i = 0; i < 30; i++) {
        ids.push(
          (
            await client.call(contract.composeRecord, {
              params: { trafficSourceId: source.id },
              body: composeBody(source.id, { status: 200 + i }),
            })
          ).id,
        );
      }
      const newestFirst = [...ids].reverse();
      const all = await client.call(contract.listTraffic, {
        params: { trafficSourceId: source.id },
        query: { limit: 100 },
      });
      expect(all.data.map((e) => e.id)).toEqual(newestFirst);
      expect(new Set(all.data.map((e) => e.createdAt))).toEqual(new Set(['2026-06-01T00:00:00.000Z']));
      const paged: string[] = [];
      for (let page = 1; page <= 4; page++) {
        const answer = await client.call(contract.listTraffic, {
          params: { trafficSourceId: source.id },
          query: { limit: 8, page },
        });
        paged.push(...answer.data.map((e) => e.id));
      }
      expect(paged).toEqual(newestFirst);
    } finally {
      await h.close();
    }
  });
});
