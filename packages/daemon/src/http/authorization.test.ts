import { contract, type Endpoint } from '@tapline/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  authenticatedEndpoints,
  buildWorld,
  send,
  VALID_REQUESTS,
  type World,
  MISSING_ID,
  rawJson,
  composeBody,
  type Harness,
  startHarness,
} from '@tapline/testkit/daemon';

/**
 * The authorization matrix: for every endpoint, a second user's token gets 403 on the first
 * user's resources, changes nothing of them, and sees nothing of them in lists.
 */
describe('authorization matrix', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness({ config: { allowPrivateWebhooks: true } });
  });
  afterEach(() => h.close());

  async function twoUsers() {
    const owner = await h.user();
    const stranger = await h.user();
    const ownerWorld = await buildWorld(owner.client, { webhook: 'local' });
    const strangerWorld = await buildWorld(stranger.client, { webhook: 'local' });
    return { owner, stranger, ownerWorld, strangerWorld };
  }

  /** Everything stored for a source, so a refused request can be shown to have changed nothing. */
  async function snapshot(world: World) {
    const { db } = h.deps;
    const source = await db
      .selectFrom('traffic_sources')
      .selectAll()
      .where('id', '=', world.sourceId)
      .executeTakeFirst();
    const counts: Record<string, number> = {};
    for (const table of ['http_traffic', 'domains', 'pathnames', 'core_logs', 'webhooks'] as const) {
      counts[table] = (
        await db.selectFrom(table).select('traffic_source_id').where('traffic_source_id', '=', world.sourceId).execute()
      ).length;
    }
    const webhooks = await db
      .selectFrom('webhooks')
      .selectAll()
      .where('traffic_source_id', '=', world.sourceId)
      .execute();
    return { source, counts, webhooks };
  }

  const resourceBound = () => authenticatedEndpoints().filter(([, e]) => e.path.includes(':'));

  it('has a request for every endpoint of the contract', () => {
    const missing = Object.keys(contract).filter((name) => !VALID_REQUESTS[name]);
    expect(missing).toEqual([]);
  });

  it("every endpoint that names a resource answers 403 Forbidden to a second user on the first user's resource, and changes nothing", async () => {
    expect(resourceBound().length).toBeGreaterThanOrEqual(13);
    for (const [name, e] of resourceBound()) {
      const { owner, stranger, ownerWorld } = await twoUsers();
      const build = VALID_REQUESTS[name];
      if (!build) throw new Error(`no request for ${name}`);
      const before = await snapshot(ownerWorld);
      const answer = await send(h, stranger.token, e, build(ownerWorld));
      expect(answer.status, `${name}: ${answer.text}`).toBe(403);
      expect(answer.json, name).toEqual({ statusCode: 403, error: 'Forbidden', code: 'forbidden' });
      expect(await snapshot(ownerWorld), name).toEqual(before);
      // The owner's own token does get through, so the 403 was about the user alone.
      const own = await send(h, owner.token, e, build(ownerWorld));
      expect(own.status, `${name} as owner: ${own.text}`).toBe(e.status);
    }
    // Two users' worlds for each of the 20-odd endpoints: past 30 s on PostgreSQL on a busy machine.
  }, 120_000);

  it('checks existence before ownership: 404 for a missing resource, whoever asks', async () => {
    const { stranger } = await twoUsers();
    for (const [name, e] of resourceBound()) {
      const params = Object.fromEntries(
        [...e.path.matchAll(/:([A-Za-z]+)/g)].map((m): [string, string] => [m[1] ?? '', MISSING_ID]),
      );
      const build = VALID_REQUESTS[name];
      const body = build
        ? build({
            sourceId: MISSING_ID,
            entryId: MISSING_ID,
            domainId: MISSING_ID,
            pathnameId: MISSING_ID,
            coreLogId: MISSING_ID,
            webhookId: MISSING_ID,
            alertRuleId: MISSING_ID,
            ruleId: MISSING_ID,
          }).body
        : undefined;
      const answer = await send(h, stranger.token, e, { params, ...(body !== undefined ? { body } : {}) });
      expect(answer.status, `${name}: ${answer.text}`).toBe(404);
      expect((answer.json as { error: string }).error, name).toMatch(/ not found$/);
    }
  });

  it('checks validation before ownership: a bad id is 400 for a stranger too', async () => {
    const { stranger } = await twoUsers();
    for (const [name, e] of resourceBound()) {
      const params = Object.fromEntries(
        [...e.path.matchAll(/:([A-Za-z]+)/g)].map((m): [string, string] => [m[1] ?? '', 'not-a-uuid']),
      );
      const answer = await send(h, stranger.token, e, { params });
      expect(answer.status, `${name}: ${answer.text}`).toBe(400);
    }
  });

  it("lists show a second user nothing of the first user's resources", async () => {
    const { stranger, ownerWorld, strangerWorld } = await twoUsers();
    const ownerIds = new Set(Object.values<string>({ ...ownerWorld }));
    const leaks = (text: string) => [...ownerIds].filter((id) => text.includes(id));

    const lists: Array<[string, Endpoint, Record<string, string> | undefined, Record<string, string> | undefined]> = [
      ['listTrafficSources', contract.listTrafficSources, undefined, undefined],
      ['listCoreLogs', contract.listCoreLogs, { trafficSourceId: strangerWorld.sourceId }, undefined],
      ['listWebhooks', contract.listWebhooks, { trafficSourceId: strangerWorld.sourceId }, undefined],
      ['listTraffic', contract.listTraffic, { trafficSourceId: strangerWorld.sourceId }, undefined],
      [
        'listTraffic by the owner’s domain',
        contract.listTraffic,
        { trafficSourceId: strangerWorld.sourceId },
        { domainId: ownerWorld.domainId },
      ],
      [
        'listTraffic by the owner’s pathname',
        contract.listTraffic,
        { trafficSourceId: strangerWorld.sourceId },
        { pathnameId: ownerWorld.pathnameId },
      ],
      ['listDomains', contract.listDomains, { trafficSourceId: strangerWorld.sourceId }, undefined],
      ['listPathnames', contract.listPathnames, { trafficSourceId: strangerWorld.sourceId }, undefined],
      [
        'listPathnames of the owner’s domain',
        contract.listPathnames,
        { trafficSourceId: strangerWorld.sourceId },
        { domainId: ownerWorld.domainId },
      ],
    ];
    for (const [label, e, params, query] of lists) {
      const answer = await send(h, stranger.token, e, { ...(params ? { params } : {}), ...(query ? { query } : {}) });
      expect(answer.status, label).toBe(200);
      expect(leaks(answer.text), label).toEqual([]);
    }
    const sources = await stranger.client.call(contract.listTrafficSources);
    expect(sources.data.map((s) => s.id)).toEqual([strangerWorld.sourceId]);
    const me = await rawJson(h, 'GET', '/auth/me', stranger.token);
    expect(leaks(me.text)).toEqual([]);
  });

  it("a second user cannot reach the first user's entries through their own source", async () => {
    const { stranger, ownerWorld, strangerWorld } = await twoUsers();
    const entry = await rawJson(
      h,
      'GET',
      `/http-traffic/${strangerWorld.sourceId}/${ownerWorld.entryId}`,
      stranger.token,
    );
    expect(entry.status).toBe(404);
    const log = await rawJson(h, 'POST', `/core-log/${strangerWorld.sourceId}`, stranger.token, {
      title: 't',
      httpTrafficId: ownerWorld.entryId,
    });
    expect(log.status).toBe(400);
    const compose = await rawJson(
      h,
      'POST',
      `/http-traffic-record/${strangerWorld.sourceId}`,
      stranger.token,
      composeBody(ownerWorld.sourceId),
    );
    expect(compose.status).toBe(400);
  });

  it("names are per user: a second user may reuse the first user's source name", async () => {
    const owner = await h.user();
    const stranger = await h.user();
    const body = { name: 'shop', trafficDomain: 'shop.example.com' };
    expect((await rawJson(h, 'POST', '/traffic-source', owner.token, body)).status).toBe(201);
    expect((await rawJson(h, 'POST', '/traffic-source', stranger.token, body)).status).toBe(201);
  });
});
