import { createHmac } from 'node:crypto';
import { type AlertPayload, type AlertRule } from '@tapline/shared';
import { composeBody, until } from '@tapline/testkit';
import { type Receiver, startReceiver } from '@tapline/testkit/daemon';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli, startDaemon, tempHome, type SpawnedDaemon } from './support/binaries.js';

/**
 * Issue 27's walk-through with the built binaries: a rule on a route, the app gets slow, one
 * firing message; it gets fast again, one resolved message a window later; both signed.
 */
describe('alert rules with the built daemon and CLI', () => {
  let home: ReturnType<typeof tempHome>;
  let hook: Receiver;
  let daemon: SpawnedDaemon | undefined;

  beforeEach(async () => {
    home = tempHome();
    hook = await startReceiver('/hooks/tapline');
  });
  afterEach(async () => {
    await daemon?.stop();
    daemon = undefined;
    await hook.close();
    home.remove();
  });

  const alerts = () =>
    hook.requests.map((r) => r.json<{ event: string; alert: AlertPayload }>()).filter((b) => b.event === 'alert');

  it('fires once when the route gets slow and resolves once when it is fast again', async () => {
    daemon = await startDaemon(home.path, ['--allow-private-webhooks', '--alert-interval', '1s']);
    const d = daemon;
    const env = { TAPLINE_URL: d.url };
    const run = (args: string[]) => cli(args, { home: home.path, env });
    expect((await run(['sources', 'add', 'shop', 'shop.example.com'])).exitCode).toBe(0);
    expect((await run(['sources', 'add', 'other', 'other.example.com'])).exitCode).toBe(0);
    const webhook = JSON.parse(
      (await run(['--json', 'webhooks', 'add', 'shop', '--type', 'http', '--level', 'fatal', '--value', hook.url]))
        .stdout,
    ) as { id: string; secret: string };
    const foreign = JSON.parse(
      (await run(['--json', 'webhooks', 'add', 'other', '--type', 'http', '--level', 'fatal', '--value', hook.url]))
        .stdout,
    ) as { id: string };

    // Bad input first: a caret under the column (exit 2), a span out of range (exit 2), another source's webhook (exit 5); nothing is created.
    const typo = await run(['alerts', 'add', 'shop', '--when', 'p95 > 300 msec', '--notify', webhook.id]);
    expect(typo.exitCode).toBe(2);
    expect(typo.stderr).toContain(
      '--when: unknown unit "msec" for p95: use one of ms, s (or "x baseline") at column 11',
    );
    expect(typo.stderr).toContain('p95 > 300 msec\n            ^');
    const short = await run(['alerts', 'add', 'shop', '--when', 'p95 > 300ms', '--for', '10s', '--notify', webhook.id]);
    expect(short).toMatchObject({ exitCode: 2 });
    expect(short.stderr).toContain('--for takes a duration from 1m to 24h');
    const elsewhere = await run(['alerts', 'add', 'shop', '--when', 'p95 > 300ms', '--notify', foreign.id]);
    expect(elsewhere.exitCode).toBe(5);
    expect(elsewhere.stderr).toContain('belongs to another traffic source');
    expect((await run(['--json', 'alerts', 'list', 'shop'])).stdout).toContain('"total":0');

    const added = await run([
      'alerts',
      'add',
      'shop',
      '--when',
      'p95 > 300ms',
      '--route',
      '/checkout',
      '--window',
      '1m',
      '--min-requests',
      '5',
      '--notify',
      webhook.id.slice(0, 8),
    ]);
    expect(added.exitCode, added.stderr).toBe(0);
    expect(added.stdout).toMatch(
      /^added alert rule [0-9a-f-]{36}: p95 > 300ms on \/checkout \(window 1m\), notifying 1 webhook$/m,
    );

    const sourceId =
      (
        JSON.parse((await run(['--json', 'sources', 'list'])).stdout) as { data: { id: string; name: string }[] }
      ).data.find((s) => s.name === 'shop')?.id ?? '';
    const post = async (n: number, ms: number) => {
      const body = Array.from({ length: n }, () =>
        composeBody(sourceId, {
          pathnameUrl: '/checkout',
          method: 'POST',
          elapsedTime: ms,
          startedAt: new Date().toISOString(),
        }),
      );
      const answer = await fetch(`${d.url}/http-traffic-record/${sourceId}/batch`, {
        method: 'POST',
        headers: { authorization: `Bearer ${d.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(answer.status).toBe(201);
    };

    // The app gets slow: one firing message within the interval (1 s), no --for.
    const slowAt = Date.now();
    await post(10, 900);
    await until(() => alerts().length >= 1, 'the firing message', 15_000);
    const firedAfter = Date.now() - slowAt;
    const listed = await run(['alerts', 'list', 'shop']);
    expect(listed.stdout).toMatch(/firing\s+p95 > 300ms\s+\/checkout/);

    // Fast again: resolved once the condition has been false for a whole window (1m).
    const fastAt = Date.now();
    await post(300, 20);
    await until(() => alerts().length >= 2, 'the resolved message', 90_000);
    const resolvedAfter = Date.now() - fastAt;
    const rule = (JSON.parse((await run(['--json', 'alerts', 'list', 'shop'])).stdout) as { data: AlertRule[] })
      .data[0];
    // Two more evaluations after resolving, and still only the two messages.
    const resolvedAt = Date.parse(rule?.stateSince ?? '');
    await until(
      async () =>
        Date.parse(
          (JSON.parse((await run(['--json', 'alerts', 'list', 'shop'])).stdout) as { data: AlertRule[] }).data[0]
            ?.evaluatedAt ?? '',
        ) >
        resolvedAt + 2_000,
      'two more evaluations',
      20_000,
    );
    expect(alerts().map((m) => m.alert.state)).toEqual(['firing', 'resolved']);
    const [fired, resolved] = alerts();
    expect(fired?.alert).toMatchObject({ rule: 'p95 > 300ms', route: '/checkout', threshold: 300, requests: 10 });
    expect(resolved?.alert.since).toBe(fired?.alert.since);
    for (const r of hook.requests)
      expect(r.headers['x-tapline-signature']).toBe(
        `sha256=${createHmac('sha256', webhook.secret).update(r.body).digest('hex')}`,
      );

    const history = await run(['alerts', 'history', 'shop']);
    expect(history.stdout).toMatch(/firing → resolved/);
    expect(history.stdout).toMatch(/ok → firing/);

    const test = await run(['alerts', 'test', rule?.id ?? '']);
    expect(test).toMatchObject({ exitCode: 0 });
    await until(() => alerts().length >= 3, 'the test message', 20_000);
    expect(alerts()[2]?.alert).toMatchObject({ test: true, state: 'firing' });
    // Figures for the report: how long each message took after the traffic changed.
    console.info(
      `alerts e2e: firing ${firedAfter} ms after the slow traffic, resolved ${resolvedAfter} ms after the fast traffic`,
    );
  }, 300_000);
});
