import { contract, followTraffic, type HttpTraffic, type TaplineClient } from '@tapline/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { composeBody, createSource, type Harness, manualClock, rawJson, startHarness } from '@tapline/testkit/daemon';
import { until } from '@tapline/testkit';

describe('compose: startedAt sets createdAt (docs/decisions.md §17.1)', () => {
  const NOW = '2026-05-05T05:05:05.555Z';
  const clock = manualClock(NOW);
  let h: Harness;
  let client: TaplineClient;
  let token: string;
  let sourceId: string;
  beforeEach(async () => {
    clock.set(NOW);
    h = await startHarness({ clock });
    const user = await h.user();
    client = user.client;
    token = user.token;
    sourceId = (await createSource(client)).id;
  });
  afterEach(() => h.close());

  const compose = (overrides: Record<string, unknown>) =>
    rawJson(h, 'POST', `/http-traffic-record/${sourceId}`, token, composeBody(sourceId, overrides));

  it('stores startedAt as createdAt, normalised to UTC with milliseconds; without it the daemon clock', async () => {
    const early = await compose({ startedAt: '2026-05-05T04:00:00Z' });
    expect(early.status, early.text).toBe(201);
    expect(early.json).toMatchObject({ createdAt: '2026-05-05T04:00:00.000Z' });
    const offset = await compose({ startedAt: '2026-05-05T07:00:00.250+02:00' });
    expect(offset.json).toMatchObject({ createdAt: '2026-05-05T05:00:00.250Z' });
    expect((await compose({})).json).toMatchObject({ createdAt: NOW });
    const list = await client.call(contract.listTraffic, { params: { trafficSourceId: sourceId }, query: {} });
    // Newest first by createdAt, not by arrival.
    expect(list.data.map((e) => e.createdAt)).toEqual([NOW, '2026-05-05T05:00:00.250Z', '2026-05-05T04:00:00.000Z']);
    const window = await client.call(contract.listTraffic, {
      params: { trafficSourceId: sourceId },
      query: { startDate: '2026-05-05T03:59:00Z', endDate: '2026-05-05T04:01:00Z' },
    });
    expect(window.data.map((e) => e.createdAt)).toEqual(['2026-05-05T04:00:00.000Z']);
  });

  it('accepts up to 5 minutes ahead of the daemon clock and refuses more with a 400 naming startedAt', async () => {
    expect((await compose({ startedAt: '2026-05-05T05:10:05.555Z' })).status).toBe(201);
    const ahead = await compose({ startedAt: '2026-05-05T05:10:05.556Z' });
    expect(ahead.status).toBe(400);
    expect(ahead.json).toMatchObject({
      code: 'validation_failed',
      issues: [{ path: 'startedAt', message: 'startedAt must not be more than 5 minutes in the future' }],
    });
    for (const startedAt of ['yesterday', '2026-05-05', 1_700_000_000_000, '2026-13-01T00:00:00Z']) {
      const bad = await compose({ startedAt });
      expect(bad.status, String(startedAt)).toBe(400);
      expect((bad.json as { issues: { path: string }[] }).issues.map((i) => i.path)).toContain('startedAt');
    }
  });

  it('a batch refuses an item too far ahead by its index, and stores the others with their own times', async () => {
    const path = `/http-traffic-record/${sourceId}/batch`;
    const bad = await rawJson(h, 'POST', path, token, [
      composeBody(sourceId),
      composeBody(sourceId, { startedAt: '2026-05-06T00:00:00.000Z' }),
    ]);
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ issues: [{ path: '1.startedAt' }] });
    const good = await rawJson(h, 'POST', path, token, [
      composeBody(sourceId, { startedAt: '2026-05-05T05:00:00.001Z' }),
      composeBody(sourceId, { startedAt: '2026-05-05T05:00:00.000Z' }),
    ]);
    expect(good.status, good.text).toBe(201);
    const list = await client.call(contract.listTraffic, { params: { trafficSourceId: sourceId }, query: {} });
    expect(list.data.map((e) => e.createdAt)).toEqual(['2026-05-05T05:00:00.001Z', '2026-05-05T05:00:00.000Z']);
  });

  it('the stream stays in arrival order: an entry with an old startedAt is still streamed, once', async () => {
    const controller = new AbortController();
    const seen: HttpTraffic[] = [];
    let live = false;
    const done = followTraffic(client, sourceId, {
      signal: controller.signal,
      onEntry: (e) => seen.push(e),
      onStatus: (s) => (live ||= s.state === 'live'),
    });
    await until(() => live, 'the stream to be live');
    await compose({});
    await compose({ startedAt: '2026-05-04T00:00:00.000Z' });
    await compose({});
    await until(() => seen.length >= 3, 'three entries');
    expect(seen.map((e) => e.createdAt)).toEqual([NOW, '2026-05-04T00:00:00.000Z', NOW]);
    controller.abort();
    const { cursor } = await done;
    // Resuming from the first entry replays the late one exactly once too.
    const replay: HttpTraffic[] = [];
    const again = new AbortController();
    let replayed = false;
    const resumed = followTraffic(client, sourceId, {
      after: seen[0]?.id ?? '',
      signal: again.signal,
      onEntry: (e) => replay.push(e),
      onStatus: (s) => (replayed ||= s.state === 'live'),
    });
    await until(() => replayed && replay.length >= 2, 'the replay');
    again.abort();
    await resumed;
    expect(replay.map((e) => e.id)).toEqual([seen[1]?.id, seen[2]?.id]);
    expect(cursor).toBe(seen[2]?.id);
  });
});
