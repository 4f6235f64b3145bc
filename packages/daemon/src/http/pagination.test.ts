import { contract } from '@tapline/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSource, raw, composeBody, type Harness, startHarness } from '@tapline/testkit/daemon';

type ListBody = {
  statusCode?: number;
  data: Array<{ id: string }>;
  meta: { total: number; page: number; limit: number };
};

/** Every list of the API, each holding exactly three items of the first source. */
describe('pagination of every list', () => {
  let h: Harness;
  let token: string;
  const lists: Record<string, string> = {};
  const empties: Record<string, string> = {};
  let emptyToken: string;

  beforeAll(async () => {
    h = await startHarness();
    const user = await h.user();
    token = user.token;
    const { client } = user;
    const source = await createSource(client, 's1');
    await createSource(client, 's2');
    await createSource(client, 's3');
    const emptyUser = await h.user();
    emptyToken = emptyUser.token;
    const emptySource = await createSource(emptyUser.client, 'empty');
    for (let i = 0; i < 3; i++) {
      await client.call(contract.composeRecord, {
        params: { trafficSourceId: source.id },
        body: composeBody(source.id, { domainUrl: `https://d${i}.example.com`, pathnameUrl: `/p${i}` }),
      });
      await client.call(contract.createCoreLog, {
        params: { trafficSourceId: source.id },
        body: { title: `log ${i}` },
      });
      const webhook = await client.call(contract.createWebhook, {
        params: { trafficSourceId: source.id },
        body: { type: 'discord', level: 'fatal', value: `https://discord.com/api/webhooks/${i}/t` },
      });
      // True at once: each rule's first evaluation is one transition, so the history holds three.
      await client.call(contract.createAlertRule, {
        params: { trafficSourceId: source.id },
        body: { when: `requests < ${1000 + i}/min`, webhookIds: [webhook.id] },
      });
      // The paths' own templates: three rules, and still three routes.
      await client.call(contract.createRouteRule, {
        params: { trafficSourceId: source.id },
        body: { template: `/p${i}` },
      });
    }
    await h.alerts.runDue();
    Object.assign(lists, {
      listTrafficSources: '/traffic-source',
      listCoreLogs: `/core-log/${source.id}`,
      listWebhooks: `/webhooks/${source.id}`,
      listTraffic: `/http-traffic/${source.id}`,
      listDomains: `/domains/${source.id}`,
      listPathnames: `/pathnames/${source.id}`,
      listRoutes: `/routes/${source.id}`,
      listAlertRules: `/alerts/${source.id}`,
      listAlertHistory: `/alerts/${source.id}/history`,
      listRouteRules: `/routes/${source.id}/rules`,
    });
    Object.assign(empties, {
      listCoreLogs: `/core-log/${emptySource.id}`,
      listWebhooks: `/webhooks/${emptySource.id}`,
      listTraffic: `/http-traffic/${emptySource.id}`,
      listDomains: `/domains/${emptySource.id}`,
      listPathnames: `/pathnames/${emptySource.id}`,
      listRoutes: `/routes/${emptySource.id}`,
      listAlertRules: `/alerts/${emptySource.id}`,
      listAlertHistory: `/alerts/${emptySource.id}/history`,
      listRouteRules: `/routes/${emptySource.id}/rules`,
    });
  });
  afterAll(() => h.close());

  async function get(path: string, query = '', as = token) {
    const answer = await raw(h, 'GET', `${path}${query}`, { token: as });
    return { status: answer.status, body: answer.json as ListBody };
  }

  it('covers every paginated list of a user or a source', () => {
    // Streams (the event stream, the HAR export) take filters but do not paginate, nor do the
    // statistics (one group per route and method), /metrics nor the inferred OpenAPI document; a webhook's deliveries belong to the webhook tests.
    const paginated = Object.entries(contract)
      .filter(
        ([, e]) =>
          e.method === 'GET' &&
          'query' in e &&
          e.query !== undefined &&
          !e.path.includes('stream') &&
          !e.path.endsWith('.har') &&
          !e.path.startsWith('/stats/') &&
          e.path !== '/metrics' &&
          !e.path.startsWith('/api-contract/') &&
          !e.path.includes(':webhookId'),
      )
      .map(([name]) => name);
    expect(Object.keys(lists).sort()).toEqual(paginated.sort());
  });

  it('defaults to page 1 and limit 10', async () => {
    for (const [name, path] of Object.entries(lists)) {
      const { status, body } = await get(path);
      expect(status, name).toBe(200);
      expect(body.meta, name).toEqual({ total: 3, page: 1, limit: 10 });
      expect(body.data.length, name).toBe(3);
    }
  });

  it('answers the empty list as data [] with meta total 0, page 1, limit 10', async () => {
    for (const [name, path] of Object.entries(empties)) {
      const { status, body } = await get(path, '', emptyToken);
      expect(status, name).toBe(200);
      expect({ data: body.data, meta: body.meta }, name).toEqual({ data: [], meta: { total: 0, page: 1, limit: 10 } });
    }
  });

  it('pages partition the list, in the same newest-first order', async () => {
    for (const [name, path] of Object.entries(lists)) {
      const all = (await get(path)).body.data.map((item) => item.id);
      const paged: string[] = [];
      for (let page = 1; page <= 3; page++) {
        const { body } = await get(path, `?page=${page}&limit=1`);
        expect(body.meta, name).toEqual({ total: 3, page, limit: 1 });
        paged.push(...body.data.map((item) => item.id));
      }
      expect(paged, name).toEqual(all);
      const two = await get(path, '?page=2&limit=2');
      expect(
        two.body.data.map((item) => item.id),
        name,
      ).toEqual(all.slice(2));
    }
  });

  it('a page past the end is data [] with the true total', async () => {
    for (const [name, path] of Object.entries(lists)) {
      for (const query of ['?page=4&limit=1', '?page=2', '?page=9007199254740991&limit=1000']) {
        const { status, body } = await get(path, query);
        expect(status, `${name}${query}`).toBe(200);
        expect(body.data, `${name}${query}`).toEqual([]);
        expect(body.meta.total, `${name}${query}`).toBe(3);
      }
    }
  });

  it('limit is an integer from 1 to 1000', async () => {
    for (const [name, path] of Object.entries(lists)) {
      for (const ok of ['1', '1000', '999', ' 5']) {
        const { status, body } = await get(path, `?limit=${encodeURIComponent(ok)}`);
        expect(status, `${name} limit=${ok}`).toBe(200);
        expect(body.meta.limit).toBe(Number(ok));
      }
      for (const bad of ['0', '1001', '-1', 'abc', '1.5', '', '1e2', '10abc', '99999999999999999999']) {
        const { status, body } = await get(path, `?limit=${encodeURIComponent(bad)}`);
        expect(status, `${name} limit=${bad}`).toBe(400);
        expect(body.statusCode).toBe(400);
      }
    }
  });

  it('page is an integer of at least 1', async () => {
    for (const [name, path] of Object.entries(lists)) {
      for (const bad of ['0', '-1', 'abc', '1.5', '', 'NaN', 'Infinity', '9007199254740992']) {
        const { status } = await get(path, `?page=${encodeURIComponent(bad)}`);
        expect(status, `${name} page=${bad}`).toBe(400);
      }
      expect((await get(path, '?page=1&page=2')).status, name).toBe(400);
    }
  });
});
