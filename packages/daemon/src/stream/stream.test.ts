import {
  contract,
  followTraffic,
  type FollowStatus,
  type HttpTraffic,
  type TaplineClient,
  type TrafficStreamFilters,
} from '@tapline/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  expectError,
  MISSING_ID,
  createSource,
  composeBody,
  type Harness,
  startHarness,
} from '@tapline/testkit/daemon';
import { until } from '@tapline/testkit';

interface Follower {
  readonly entries: HttpTraffic[];
  readonly statuses: FollowStatus[];
  readonly done: Promise<{ cursor: string | undefined }>;
  live(): Promise<void>;
  stop(): Promise<{ cursor: string | undefined }>;
}

function follow(
  client: TaplineClient,
  sourceId: string,
  options: { filters?: TrafficStreamFilters; q?: string; after?: string } = {},
): Follower {
  const controller = new AbortController();
  const entries: HttpTraffic[] = [];
  const statuses: FollowStatus[] = [];
  const done = followTraffic(client, sourceId, {
    ...options,
    signal: controller.signal,
    onEntry: (e) => entries.push(e),
    onStatus: (s) => statuses.push(s),
  });
  return {
    entries,
    statuses,
    done,
    live: () => until(() => statuses.some((s) => s.state === 'live'), 'the stream to be live'),
    stop: () => {
      controller.abort();
      return done;
    },
  };
}

async function compose(client: TaplineClient, sourceId: string, overrides: Record<string, unknown> = {}) {
  return client.call(contract.composeRecord, {
    params: { trafficSourceId: sourceId },
    body: composeBody(sourceId, overrides),
  });
}

describe('GET /http-traffic/:trafficSourceId/stream', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(() => h.close());

  it('sends live entries oldest first, each once, with the filters and q applied', async () => {
    const { client } = await h.user();
    const source = await createSource(client);
    const all = follow(client, source.id);
    const fatal = follow(client, source.id, { q: 'status>=500' });
    const posts = follow(client, source.id, { filters: { method: 'post' }, q: 'path^=/api/ and not path~"HEALTH"' });
    const jsonHeader = follow(client, source.id, { q: 'header.x-trace~abc' });
    const timeoutBody = follow(client, source.id, { q: 'level=FATAL and body~"timeout"' });
    await Promise.all([all, fatal, posts, jsonHeader, timeoutBody].map((f) => f.live()));

    const a = await compose(client, source.id, { status: 200, method: 'POST', pathnameUrl: '/api/orders' });
    const b = await compose(client, source.id, {
      status: 503,
      responseBody: { error: 'Upstream Timeout' },
      requestHeaders: { 'X-Trace': 'zABCz' },
    });
    const c = await compose(client, source.id, { status: 500, method: 'POST', pathnameUrl: '/api/health' });
    const d = await compose(client, source.id, { status: 404, responseHeaders: { 'x-trace': ['no', 'abc'] } });

    await until(() => all.entries.length === 4, 'every entry');
    await until(() => jsonHeader.entries.length === 2 && timeoutBody.entries.length === 1, 'header and body matches');
    expect(all.entries.map((e) => e.id)).toEqual([a.id, b.id, c.id, d.id]);
    expect(fatal.entries.map((e) => e.id)).toEqual([b.id, c.id]);
    expect(posts.entries.map((e) => e.id)).toEqual([a.id]);
    expect(jsonHeader.entries.map((e) => e.id)).toEqual([b.id, d.id]);
    expect(timeoutBody.entries.map((e) => e.id)).toEqual([b.id]);
    expect(all.entries[0]).toMatchObject({
      domain: 'shop.example.com',
      pathname: '/api/orders',
      protocol: 'HTTPS',
      method: 'POST',
    });
    for (const f of [all, fatal, posts, jsonHeader, timeoutBody]) await f.stop();
  });

  it('resumes after a disconnect from its cursor: the missed entries, in order, none twice', async () => {
    const { client } = await h.user();
    const source = await createSource(client);
    const before = await compose(client, source.id);
    const first = follow(client, source.id, { q: 'status!=4xx' });
    await first.live();
    const seen1 = await compose(client, source.id, { status: 201 });
    await until(() => first.entries.length === 1, 'the first entry');
    const { cursor } = await first.stop();
    expect(cursor).toBe(seen1.id);

    const missed = [];
    for (let i = 0; i < 5; i++) missed.push(await compose(client, source.id, { status: i % 2 ? 404 : 200 + i }));
    const second = follow(client, source.id, { q: 'status!=4xx', after: cursor });
    await until(() => second.entries.length === 3, 'the replay');
    const after = await compose(client, source.id);
    await until(() => second.entries.length === 4, 'the live entry');
    expect(second.entries.map((e) => e.id)).toEqual([missed[0]!.id, missed[2]!.id, missed[4]!.id, after.id]);
    expect(second.entries.map((e) => e.id)).not.toContain(before.id);
    await second.stop();
  });

  it('loses nothing and repeats nothing when entries arrive during the replay', async () => {
    const { client } = await h.user();
    const source = await createSource(client);
    const first = await compose(client, source.id);
    const stored = await client.call(contract.composeBatch, {
      params: { trafficSourceId: source.id },
      body: Array.from({ length: 600 }, () => composeBody(source.id)),
    });
    const follower = follow(client, source.id, { after: first.id });
    const concurrent: string[] = [];
    for (let i = 0; i < 40; i++) concurrent.push((await compose(client, source.id)).id);
    const expected = [...stored.ids, ...concurrent];
    await until(() => follower.entries.length >= expected.length, 'replay and live');
    expect(follower.entries.map((e) => e.id)).toEqual(expected);
    await follower.stop();
  });

  it('starts a fresh stream at the newest stored entry, so a reconnect before any event misses nothing', async () => {
    const { client } = await h.user();
    const source = await createSource(client);
    const old = await compose(client, source.id);
    const response = await h.fetch(`/http-traffic/${source.id}/stream`, {
      headers: { authorization: `Bearer ${(await h.user()).token}` },
    });
    expect(response.status).toBe(403);
    const follower = follow(client, source.id);
    await follower.live();
    expect(follower.statuses.find((s) => s.state === 'live')).toMatchObject({ cursor: old.id, reconnected: false });
    const { cursor } = await follower.stop();
    expect(cursor).toBe(old.id);
    expect(follower.entries).toEqual([]);
  });

  it('answers the list endpoint errors: 400 for a bad q with its column, a bad cursor, 401, 404, and stays before getTraffic', async () => {
    const { client, token } = await h.user();
    const source = await createSource(client);
    const auth = { authorization: `Bearer ${token}` };
    const bad = await h.fetch(`/http-traffic/${source.id}/stream?q=${encodeURIComponent('status>=500 and stauts=1')}`, {
      headers: auth,
    });
    expect(bad.status).toBe(400);
    const body = (await bad.json()) as { error: string; issues: { path: string }[] };
    expect(body.error).toBe(
      'q: unknown field "stauts"; fields are method, status, level, latency, path, domain, protocol, user, header.<name>, body, route at column 17',
    );
    expect(body.issues[0]?.path).toBe('q');
    const cursor = await h.fetch(`/http-traffic/${source.id}/stream`, {
      headers: { ...auth, 'last-event-id': 'nope' },
    });
    expect(cursor.status).toBe(400);
    expect(((await cursor.json()) as { error: string }).error).toBe('Last-Event-ID must be a valid UUID');
    expect((await h.fetch(`/http-traffic/${source.id}/stream?after=nope`, { headers: auth })).status).toBe(400);
    expect((await h.fetch(`/http-traffic/${source.id}/stream`)).status).toBe(400);
    expect(
      (await h.fetch(`/http-traffic/${source.id}/stream`, { headers: { authorization: 'Bearer x' } })).status,
    ).toBe(401);
    expect((await h.fetch(`/http-traffic/${MISSING_ID}/stream`, { headers: auth })).status).toBe(404);
    await expectError(followTraffic(client, MISSING_ID, { onEntry: () => {} }), 404, 'Traffic Source not found');
    await expectError(
      followTraffic(client, source.id, { q: 'status>', onEntry: () => {} }),
      400,
      'q: expected a value after > at column 8',
    );
  });

  it('filters the list with q, and a bad q is a 400 naming the column', async () => {
    const { client } = await h.user();
    const source = await createSource(client);
    await compose(client, source.id, { status: 200 });
    const slow = await compose(client, source.id, { status: 502, elapsedTime: 1500 });
    const list = await client.call(contract.listTraffic, {
      params: { trafficSourceId: source.id },
      query: { q: 'level=FATAL or latency>1s' },
    });
    expect(list.data.map((e) => e.id)).toEqual([slow.id]);
    expect(list.meta.total).toBe(1);
    await expectError(
      client.call(contract.listTraffic, { params: { trafficSourceId: source.id }, query: { q: 'method=GET or' } }),
      400,
      'q: expected a condition at column 14',
    );
  });

  it('serves 100 concurrent streams while ingesting, each getting every entry once, at little cost to publish', async () => {
    const { client } = await h.user();
    const source = await createSource(client);
    const followers = Array.from({ length: 100 }, (_, i) =>
      follow(client, source.id, i % 2 ? { q: 'status>=500' } : {}),
    );
    await Promise.all(followers.map((f) => f.live()));

    let publishMs = 0;
    const unsubscribe = h.deps.bus.subscribe(() => {});
    const original = h.deps.bus.publish.bind(h.deps.bus);
    Object.assign(h.deps.bus, {
      publish: (entries: Parameters<typeof original>[0]) => {
        const start = performance.now();
        original(entries);
        publishMs += performance.now() - start;
      },
    });
    const ids: string[] = [];
    const fatalIds: string[] = [];
    for (let round = 0; round < 10; round++) {
      const batch = Array.from({ length: 20 }, (_, i) => composeBody(source.id, { status: i % 4 === 0 ? 500 : 200 }));
      const { ids: stored } = await client.call(contract.composeBatch, {
        params: { trafficSourceId: source.id },
        body: batch,
      });
      ids.push(...stored);
      fatalIds.push(...stored.filter((_, i) => i % 4 === 0));
    }
    await until(
      () => followers.every((f, i) => f.entries.length === (i % 2 ? fatalIds.length : ids.length)),
      'every stream to catch up',
      20_000,
    );
    for (const [i, f] of followers.entries()) expect(f.entries.map((e) => e.id)).toEqual(i % 2 ? fatalIds : ids);
    // Ten publishes of 20 entries to 100 streams: in-memory filtering and a push each.
    expect(publishMs / 10).toBeLessThan(20);
    unsubscribe();
    await Promise.all(followers.map((f) => f.stop()));
  });

  it('ends open streams when the daemon stops', async () => {
    const { client } = await h.user();
    const source = await createSource(client);
    const follower = follow(client, source.id);
    await follower.live();
    const closed = h.close();
    await until(() => follower.statuses.some((s) => s.state === 'reconnecting'), 'the stream to end');
    await closed;
    await follower.stop();
    h = await startHarness();
  });
});
