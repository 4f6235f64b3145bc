import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SpawnedDaemon, startDaemon, tempHome } from './support/binaries.js';
import { compose, createSource } from './support/compose.js';
import { FOREGROUND, inverseAt, tmuxServer } from './support/tmux.js';

const server = tmuxServer('ui-routes');
const pane = 'routes';
const screen = () => server.screen(pane);
const lineWith = (text: string) =>
  server
    .styled(pane)
    .split('\n')
    .find((l) => l.includes(text)) ?? '';
const wait = (check: (s: string) => boolean, what: string) => server.waitForScreen(pane, check, what);
const showing = (text: string) => (s: string) => s.includes(text);
/** The routes view's rows, top to bottom, as their routes. */
const routeOrder = (s: string) => s.split('\n').flatMap((l) => /\s(\/(?:users|orders)\/\{id\})\s*$/.exec(l)?.[1] ?? []);

describe('tapline ui: the routes view in a real terminal (tmux, 120x30, colour)', () => {
  const home = tempHome();
  let daemon: SpawnedDaemon;
  let sourceId: string;

  beforeAll(async () => {
    daemon = await startDaemon(home.path);
    sourceId = await createSource(daemon.url, daemon.token, 'shop');
    await compose(daemon.url, daemon.token, sourceId, { pathnameUrl: '/users/42', elapsedTime: 10 });
    await compose(daemon.url, daemon.token, sourceId, { pathnameUrl: '/users/43', elapsedTime: 20 });
    await compose(daemon.url, daemon.token, sourceId, {
      pathnameUrl: '/orders/7',
      method: 'POST',
      status: 503,
      elapsedTime: 840,
    });
    server.startUi(pane, 'shop', { url: daemon.url, home: home.path });
  });

  afterAll(async () => {
    server.kill();
    await daemon?.stop();
    home.remove();
  });

  it('r opens the per-route table, live and sortable; Enter filters the traffic to the route; the record shows it', async () => {
    const first = await wait((s) => s.includes('/orders/7') && s.includes('● following'), 'the traffic, following');
    expect(
      first
        .split('\n')
        .filter((l) => l.trim())
        .at(-1),
    ).toContain('r routes');

    server.keys(pane, 'r');
    const table = await wait((s) => s.includes('sorted by count') && routeOrder(s).length === 2, 'the routes view');
    expect(table).toMatch(/METHOD +COUNT +ERRORS +P50 +P95 +P99 +MAX +REQUESTS +P95 OVER TIME +ROUTE/);
    expect(routeOrder(table)).toEqual(['/users/{id}', '/orders/{id}']);
    expect(table).toMatch(/GET +2 +0% .*\/users\/\{id\}/);
    expect(table).toMatch(/POST +1 +100% .*\/orders\/\{id\}/);
    // In colour, and the selected row in inverse video.
    expect(lineWith('sorted by count')).toMatch(FOREGROUND);
    expect(inverseAt(lineWith('/users/{id}'), '/users/{id}')).toBe(true);
    expect(inverseAt(lineWith('/orders/{id}'), '/orders/{id}')).toBe(false);

    // Live: a new entry shows in the numbers without a key.
    await compose(daemon.url, daemon.token, sourceId, { pathnameUrl: '/users/44', elapsedTime: 30 });
    await wait((s) => /GET +3 +0% .*\/users\/\{id\}/.test(s), 'the count refreshed to 3');

    server.keys(pane, 's');
    const byP95 = await wait(showing('sorted by p95'), 'sorted by p95');
    expect(routeOrder(byP95)).toEqual(['/orders/{id}', '/users/{id}']);

    server.keys(pane, 'Enter');
    const filtered = await wait(
      (s) => s.includes('filter: route=/orders/{id} and method=POST') && s.includes('/orders/7'),
      "the route's traffic",
    );
    expect(filtered).not.toContain('/users/4');

    server.keys(pane, 'Enter');
    await wait(showing('Route /orders/{id}'), 'the record with its route');

    server.keys(pane, 'Escape');
    await wait(showing('DOMAIN+PATH'), 'back at the table');
    server.keys(pane, 'q');
    await wait(showing('tapline ui exited with 0'), 'the exit');
    expect(screen()).not.toContain('DOMAIN+PATH');
  });
});
