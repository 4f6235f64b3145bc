import type { StatsGroup } from '@tapline/shared';
import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeApi, frameWith, KEYS, makeEntry, press, SOURCE, until } from '@tapline/testkit/cli';
import { routeFilter, Session } from './Session.js';

const size = { columns: 120, rows: 24 };
let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

const group = (route: string, method: StatsGroup['method'], count: number, p95: number, status5xx = 0): StatsGroup => ({
  route,
  method,
  count,
  status4xx: 0,
  status5xx,
  errorRate: status5xx / count,
  p50: p95 / 2,
  p90: p95,
  p95,
  p99: p95,
  max: p95,
  requestBytes: 0,
  responseBytes: 0,
});

function start(api: FakeApi) {
  const view = render(
    <Session api={api} source={SOURCE} size={size} feedOptions={{ flushMs: 20, statsMs: 50 }} onQuit={() => {}} />,
  );
  cleanup = view.unmount;
  return view;
}

const rowsOf = (frame: string) => frame.split('\n').filter((l) => /\/(users|orders)\//.test(l) && /GET|POST/.test(l));

describe('Session: the routes view (r)', () => {
  it("shows tapline stats' table, sorts with s, refreshes, and Enter opens the route's traffic", async () => {
    const api = new FakeApi([
      makeEntry({ pathname: '/users/42', route: '/users/{id}' }),
      makeEntry({ method: 'POST', pathname: '/orders/7', route: '/orders/{id}' }),
    ]);
    api.routeGroups = [group('/users/{id}', 'GET', 40, 12), group('/orders/{id}', 'POST', 3, 900, 1)];
    const { lastFrame, stdin } = start(api);
    await frameWith(lastFrame, '/orders/7');
    await press(stdin, 'r');
    const table = await frameWith(lastFrame, 'ERRORS');
    expect(table).toContain('sorted by count');
    // The header is bold, as in `tapline stats` on a terminal.
    expect(table.replace(/\u001b\[[0-9;]*m/g, '')).toMatch(/METHOD +COUNT +ERRORS +P50 +P95/);
    expect(rowsOf(table).map((l) => l.includes('/users/{id}'))).toEqual([true, false]);
    expect(rowsOf(table)[1]).toMatch(/POST +3 +33%/);

    await press(stdin, 's');
    const byP95 = await frameWith(lastFrame, 'sorted by p95');
    expect(rowsOf(byP95).map((l) => l.includes('/orders/{id}'))).toEqual([true, false]);

    // Live: the numbers are asked for again while the view is open.
    const calls = api.statsCalls;
    api.routeGroups = [group('/users/{id}', 'GET', 41, 12), group('/orders/{id}', 'POST', 3, 900, 1)];
    await frameWith(lastFrame, /GET +41 /, 5000);
    expect(api.statsCalls).toBeGreaterThan(calls);

    await press(stdin, KEYS.enter);
    const traffic = await frameWith(lastFrame, 'filter: route=/orders/{id} and method=POST  ·  1 loaded');
    expect(traffic).toContain('/orders/7');
    expect(traffic).not.toContain('/users/42');
    await until(
      () => api.listCalls.at(-1)?.q,
      (q) => q === 'route=/orders/{id} and method=POST',
    );
  });

  it('quotes a template the filter language would read otherwise', () => {
    expect(routeFilter({ route: '/q/say hi', method: 'GET' })).toBe('route="/q/say hi" and method=GET');
    expect(routeFilter({ route: '/users/{id}' })).toBe('route=/users/{id}');
  });
});
