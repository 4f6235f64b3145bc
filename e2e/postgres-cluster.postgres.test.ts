import { ApiError, contract, createClient, followTraffic, type HttpTraffic, type TaplineClient } from '@tapline/shared';
import { type Balancer, composeBody, startBalancer, until } from '@tapline/testkit';
import { type FreshDatabase, freshDatabase, type Receiver, startReceiver } from '@tapline/testkit/daemon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminOn, type Member, startMember } from './support/cluster.js';

/**
 * Two built daemons on one PostgreSQL database behind a round-robin balancer behave as one daemon
 * (docs/postgres.md). Runs in the `postgres` project: whenever PostgreSQL is there, and under CI
 * always (vitest.config.ts fails a CI run without it; elsewhere the run ends with a notice).
 */
describe('two daemons on one PostgreSQL database (built taplined)', () => {
  let database: FreshDatabase;
  let a: Member;
  let b: Member;
  let balancer: Balancer;
  let token: string;
  let client: TaplineClient;
  let sourceId: string;
  const via = (member: Member | Balancer, with_ = token) => createClient({ baseUrl: member.url, token: with_ });
  const compose = (on: TaplineClient, status = 200) =>
    on.call(contract.composeRecord, { params: { trafficSourceId: sourceId }, body: composeBody(sourceId, { status }) });

  beforeAll(async () => {
    database = await freshDatabase();
    // Both start at once on an empty database: migrations run under a lock, once.
    [a, b] = await Promise.all([startMember(database.locator), startMember(database.locator)]);
    balancer = await startBalancer([a.url, b.url]);
    await adminOn(database.locator, ['user', 'add', 'ops@example.com']);
    token = await adminOn(database.locator, ['token', 'create', 'ops@example.com']);
    client = via(balancer);
    sourceId = (
      await client.call(contract.createTrafficSource, { body: { name: 'shop', trafficDomain: 'shop.example.com' } })
    ).id;
  }, 90_000);
  afterAll(async () => {
    await balancer?.close();
    await Promise.all([a?.stop(), b?.stop()]);
    await database?.drop();
  });

  it('spreads composes over both daemons and lists them all, with an exact total, through either', async () => {
    const ids = [];
    for (let i = 0; i < 20; i++) ids.push((await compose(client)).id);
    expect(new Set(balancer.served)).toEqual(new Set([0, 1]));
    for (const member of [a, b]) {
      const list = await via(member).call(contract.listTraffic, {
        params: { trafficSourceId: sourceId },
        query: { limit: 1000 },
      });
      expect(list.meta.total).toBe(ids.length);
      expect(new Set(list.data.map((e) => e.id))).toEqual(new Set(ids));
    }
  });

  it('streams from one daemon, in order and once, what is composed through the other; a cursor resumes on the other', async () => {
    const seen: HttpTraffic[] = [];
    const stop = new AbortController();
    let live = false;
    const following = followTraffic(via(b), sourceId, {
      signal: stop.signal,
      onEntry: (e) => seen.push(e),
      onStatus: (s) => (live ||= s.state === 'live'),
    });
    await until(() => live, 'the stream on b', 20_000);
    const ids = [];
    for (let i = 0; i < 10; i++) ids.push((await compose(via(a))).id);
    await until(() => seen.length >= ids.length, 'b to stream what a stored', 20_000);
    expect(seen.map((e) => e.id)).toEqual(ids);
    stop.abort();
    await following;

    // The fifth id, taken from b's stream, resumes on a: the sixth to the tenth, then live ones.
    const resumed: string[] = [];
    const again = new AbortController();
    const resuming = followTraffic(via(a), sourceId, {
      after: ids[4],
      signal: again.signal,
      onEntry: (e) => resumed.push(e.id),
    });
    const later = (await compose(via(b))).id;
    await until(() => resumed.length >= 6, 'a to replay and go live', 20_000);
    expect(resumed).toEqual([...ids.slice(5), later]);
    again.abort();
    await resuming;
  });

  it('streams through the balancer entries composed on either daemon', async () => {
    const seen: string[] = [];
    const stop = new AbortController();
    let live = false;
    const following = followTraffic(client, sourceId, {
      signal: stop.signal,
      onEntry: (e) => seen.push(e.id),
      onStatus: (s) => (live ||= s.state === 'live'),
    });
    await until(() => live, 'the stream through the balancer', 20_000);
    const ids = [
      (await compose(via(a))).id,
      (await compose(via(b))).id,
      (await compose(client)).id,
      (await compose(client)).id,
    ];
    await until(() => seen.length >= ids.length, 'every entry through the balancer', 20_000);
    expect(seen).toEqual(ids);
    stop.abort();
    await following;
  });

  it('honours on one daemon a token revoked through the other', async () => {
    const second = await adminOn(database.locator, ['token', 'create', 'ops@example.com']);
    expect((await via(b, second).call(contract.me, {})).email).toBe('ops@example.com');
    await via(a, second).call(contract.revokeOwnToken, {});
    await expect(via(b, second).call(contract.me, {})).rejects.toMatchObject({ status: 401 });
  });
});

describe('webhooks and a crash on two daemons (built taplined)', () => {
  let database: FreshDatabase;
  let a: Member;
  let b: Member;
  let balancer: Balancer;
  let receiver: Receiver;
  let token: string;
  let client: TaplineClient;
  let sourceId: string;

  beforeAll(async () => {
    database = await freshDatabase();
    a = await startMember(database.locator);
    b = await startMember(database.locator);
    balancer = await startBalancer([a.url, b.url]);
    receiver = await startReceiver();
    await adminOn(database.locator, ['user', 'add', 'ops@example.com']);
    token = await adminOn(database.locator, ['token', 'create', 'ops@example.com']);
    client = createClient({ baseUrl: balancer.url, token });
    sourceId = (
      await client.call(contract.createTrafficSource, { body: { name: 'shop', trafficDomain: 'shop.example.com' } })
    ).id;
  }, 90_000);
  afterAll(async () => {
    await balancer?.close();
    await receiver?.close();
    await Promise.all([a?.stop().catch(() => undefined), b?.stop()]);
    await database?.drop();
  });
  const compose = (status = 200) =>
    client.call(contract.composeRecord, {
      params: { trafficSourceId: sourceId },
      body: composeBody(sourceId, { status }),
    });

  it('delivers each notification exactly once, whichever daemon stored the entry', async () => {
    const webhook = await client.call(contract.createWebhook, {
      params: { trafficSourceId: sourceId },
      body: { type: 'http', level: 'fatal', value: receiver.url },
    });
    const ids = [];
    for (let i = 0; i < 4; i++) ids.push((await compose(503)).id);
    const attempts = () =>
      client.call(contract.listWebhookDeliveries, { params: { webhookId: webhook.id }, query: { limit: 100 } });
    await until(
      async () => (await attempts()).data.filter((d) => d.outcome === 'delivered').length === ids.length,
      'four deliveries',
      20_000,
    );
    expect((await attempts()).data.every((d) => d.attempt === 1)).toBe(true);
    const entries = receiver.requests.map((r) => r.json<{ entry: HttpTraffic }>().entry.id);
    expect(entries.sort()).toEqual([...ids].sort());
    await client.call(contract.deleteWebhook, { params: { webhookId: webhook.id } });
  });

  it('loses no acknowledged record when one daemon is killed during ingest, and the other keeps serving', async () => {
    const acknowledged: string[] = [];
    let running = true;
    const writers = Array.from({ length: 4 }, async () => {
      while (running) {
        try {
          acknowledged.push((await compose()).id);
        } catch (error) {
          // In flight on the killed daemon: never acknowledged (the balancer answers 502).
          if (!(error instanceof ApiError) || error.status !== 502) throw error;
        }
      }
    });
    await until(() => acknowledged.length >= 100, '100 acknowledged records', 20_000);
    await a.kill();
    const atKill = acknowledged.length;
    await until(() => acknowledged.length >= atKill + 100, '100 more through the survivor', 20_000);
    running = false;
    await Promise.all(writers);
    const stored = new Set<string>();
    for (let page = 1; ; page++) {
      const list = await createClient({ baseUrl: b.url, token }).call(contract.listTraffic, {
        params: { trafficSourceId: sourceId },
        query: { limit: 1000, page },
      });
      list.data.forEach((e) => stored.add(e.id));
      if (list.data.length < 1000) break;
    }
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
  });
});
