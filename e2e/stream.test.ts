import {
  contract,
  createClient,
  followTraffic,
  type FollowStatus,
  type HttpTraffic,
  type TaplineClient,
} from '@tapline/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type SpawnedDaemon, startDaemon, tempHome } from './support/binaries.js';
import { until } from '@tapline/testkit';

const body = (sourceId: string, status: number) => ({
  domainUrl: 'https://shop.example.com',
  pathnameUrl: '/api/orders',
  trafficSourceId: sourceId,
  status,
  protocol: 'HTTPS',
  method: 'GET',
  elapsedTime: 3,
  requestHeaders: {},
  queryParams: {},
  responseHeaders: {},
});

async function composeMany(client: TaplineClient, sourceId: string, statuses: readonly number[]): Promise<string[]> {
  const ids: string[] = [];
  for (const status of statuses)
    ids.push(
      (
        await client.call(contract.composeRecord, {
          params: { trafficSourceId: sourceId },
          body: body(sourceId, status),
        })
      ).id,
    );
  return ids;
}

const portOf = (url: string) => new URL(url).port;

describe('following traffic across daemon restarts (built taplined)', () => {
  let home: ReturnType<typeof tempHome>;
  const running: SpawnedDaemon[] = [];
  beforeEach(() => {
    home = tempHome('tapline-stream-');
  });
  const start = async (args: string[] = []) => {
    const daemon = await startDaemon(home.path, args);
    running.push(daemon);
    return daemon;
  };
  afterEach(async () => {
    await Promise.all(running.splice(0).map((d) => d.stop()));
    home.remove();
  });

  it.each(['SIGTERM', 'SIGKILL'] as const)(
    'a follower resumes after %s and a restart, losing and repeating nothing',
    async (signal) => {
      const first = await start();
      const client = createClient({ baseUrl: first.url, token: first.token });
      const source = await client.call(contract.createTrafficSource, {
        body: { name: 'shop', trafficDomain: 'shop.example.com' },
      });

      const entries: HttpTraffic[] = [];
      const statuses: FollowStatus[] = [];
      const controller = new AbortController();
      const following = followTraffic(client, source.id, {
        q: 'status>=400',
        signal: controller.signal,
        onEntry: (e) => entries.push(e),
        onStatus: (s) => statuses.push(s),
      });
      await until(() => statuses.some((s) => s.state === 'live'), 'the stream to be live', 15_000);

      const beforeIds = await composeMany(client, source.id, [500, 200, 404]);
      await until(() => entries.length === 2, 'entries before the restart', 15_000);

      const stoppedAt = Date.now();
      if (signal === 'SIGTERM') expect(await first.stop()).toBe(0);
      else await first.kill();
      running.splice(running.indexOf(first), 1);
      // A stopping daemon ends its streams, so SIGTERM does not wait out the 10 s force-close.
      expect(Date.now() - stoppedAt).toBeLessThan(5_000);
      await until(() => statuses.some((s) => s.state === 'reconnecting'), 'the follower to notice', 15_000);

      // While the follower is cut off, another daemon on the same database stores more traffic.
      const side = await start();
      const sideClient = createClient({ baseUrl: side.url, token: side.token });
      const whileDownIds = await composeMany(sideClient, source.id, [502, 201, 403]);
      await side.stop();
      running.splice(running.indexOf(side), 1);

      await start(['--port', portOf(first.url)]);
      await until(() => statuses.some((s) => s.state === 'live' && s.reconnected), 'the follower to reconnect', 15_000);
      const afterIds = await composeMany(client, source.id, [503, 200]);
      await until(() => entries.length === 5, 'every entry', 15_000);

      expect(entries.map((e) => e.id)).toEqual([
        beforeIds[0],
        beforeIds[2],
        whileDownIds[0],
        whileDownIds[2],
        afterIds[0],
      ]);
      const reconnecting = statuses.filter((s) => s.state === 'reconnecting');
      expect(reconnecting[0]).toMatchObject({ attempt: 1, retryInMs: 250 });
      controller.abort();
      expect((await following).cursor).toBe(afterIds[0]);
      expect(statuses.at(-1)).toEqual({ state: 'stopped', cursor: afterIds[0] });
    },
  );
});
