import { type AddressInfo, createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SpawnedDaemon, startDaemon, TAPLINE, tempHome } from './support/binaries.js';
import { compose, createSource } from './support/compose.js';
import { FOREGROUND, inverseAt, tmuxServer } from './support/tmux.js';

const server = tmuxServer('ui');
const { tmux } = server;
const session = 'ui';
const screen = (pane = session) => server.screen(pane);
const styled = (pane = session) => server.styled(pane);
const keys = (...k: string[]) => server.keys(session, ...k);
const type = (text: string) => server.type(session, text);

const lineWith = (pane: string, text: string) =>
  styled(pane)
    .split('\n')
    .find((l) => l.includes(text)) ?? '';

const waitForScreen = (check: (s: string) => boolean, what: string, timeoutMs = 20_000, pane = session) =>
  server.waitForScreen(pane, check, what, timeoutMs);
const showing = (text: string) => (s: string) => s.includes(text);

describe('tapline ui in a real terminal (tmux, 100x30)', () => {
  const home = tempHome();
  let daemon: SpawnedDaemon;
  let sourceId: string;

  beforeAll(async () => {
    daemon = await startDaemon(home.path);
    sourceId = await createSource(daemon.url, daemon.token, 'shop');
    await compose(daemon.url, daemon.token, sourceId, { pathnameUrl: '/api/health' });
    await compose(daemon.url, daemon.token, sourceId, {
      pathnameUrl: '/api/orders',
      method: 'POST',
      status: 503,
      elapsedTime: 840,
      requestBody: { sku: 'A-1', qty: 2 },
    });
    // CI=true as on a CI runner: the UI must still redraw in place and colour. No DISPLAY, so
    // there is no clipboard tool and `c` goes through OSC 52, which tmux keeps as a paste buffer.
    const ui = (env: string) =>
      `env -u DISPLAY -u WAYLAND_DISPLAY CI=true ${env} TAPLINE_URL=${daemon.url} TAPLINE_HOME=${home.path} TERM=xterm-256color node ${TAPLINE} ui shop; echo "tapline ui exited with $?"; sleep 600`;
    tmux('new-session', '-d', '-s', session, '-x', '100', '-y', '30', ui(''));
    tmux('set-option', '-g', 'set-clipboard', 'on');
    tmux('new-session', '-d', '-s', 'nocolor', '-x', '100', '-y', '30', ui('NO_COLOR=1'));
  });

  afterAll(async () => {
    server.kill();
    await daemon?.stop();
    home.remove();
  });

  it('follows, filters, opens a record, goes back and quits', async () => {
    const first = await waitForScreen(
      (s) => s.includes('/api/orders') && s.includes('● following'),
      'the history, then following',
    );
    expect(first).toContain('DOMAIN+PATH');
    // Coloured, and the selected (top) row in inverse video, although CI is set.
    expect(styled().split('\n')[0]).toMatch(FOREGROUND);
    expect(inverseAt(lineWith(session, '/api/orders'), '/api/orders')).toBe(true);
    expect(inverseAt(lineWith(session, '/api/health'), '/api/health')).toBe(false);
    expect(first.split('\n')[0]).toMatch(/INFO 1 WARN 0 FATAL 1 +p50 12ms p95 840ms/);

    // follow
    await compose(daemon.url, daemon.token, sourceId, { pathnameUrl: '/api/live', status: 404 });
    const live = await waitForScreen(showing('/api/live'), 'a new entry');
    const lines = live.split('\n');
    expect(lines.findIndex((l) => l.includes('/api/live'))).toBeLessThan(
      lines.findIndex((l) => l.includes('/api/health')),
    );

    // filter
    keys('/');
    await waitForScreen(showing('esc clear'), 'the filter prompt');
    type('status>=500');
    await waitForScreen(showing('✓ enter to apply'), 'the filter checked');
    keys('Enter');
    const filtered = await waitForScreen(
      (s) => s.includes('filter: status>=500') && s.includes('/api/orders'),
      'the filtered table',
    );
    expect(filtered).not.toContain('/api/health');
    expect(filtered).not.toContain('/api/live');

    // open on the request (its tab in inverse video), Tab to the response, copy, back
    keys('Enter');
    const request = await waitForScreen(
      showing('POST https://shop.example.com/api/orders'),
      'the record, request side',
    );
    expect(request).toContain('"qty": 2');
    const tabs = lineWith(session, ' Request ');
    expect([inverseAt(tabs, 'Request'), inverseAt(tabs, 'Response')]).toEqual([true, false]);
    keys('Tab');
    await waitForScreen(showing('content-type'), 'the response side');
    const switched = lineWith(session, ' Request ');
    expect([inverseAt(switched, 'Request'), inverseAt(switched, 'Response')]).toEqual([false, true]);
    keys('c');
    await waitForScreen(showing('terminal clipboard (OSC 52)'), 'the copy notice');
    expect(tmux('show-buffer')).toMatch(/^curl -X POST '?https:\/\/shop\.example\.com\/api\/orders/);
    keys('Escape');
    await waitForScreen((s) => s.includes('DOMAIN+PATH') && s.includes('filter: status>=500'), 'back at the table');

    // quit restores the terminal: the shell line after the UI is on a clean screen.
    keys('q');
    const after = await waitForScreen(showing('tapline ui exited with 0'), 'the exit');
    expect(after).not.toContain('DOMAIN+PATH');
  });

  it('NO_COLOR: no colour at all, the selection still shown in inverse video', async () => {
    await waitForScreen(
      (s) => s.includes('/api/orders') && s.includes('● following'),
      'the uncoloured UI',
      20_000,
      'nocolor',
    );
    expect(styled('nocolor')).not.toMatch(FOREGROUND);
    // Rows 2 and 3: the selected newest entry and the one below it.
    const [, , selected = '', next = ''] = styled('nocolor').split('\n');
    expect(inverseAt(selected, 'shop.example.com')).toBe(true);
    expect(inverseAt(next, 'shop.example.com')).toBe(false);
  });
});

describe('tapline ui at 80 columns, and while its daemon is away (tmux, 80x24)', () => {
  const home = tempHome();
  const pane = 'narrow';
  let daemon: SpawnedDaemon;
  let sourceId: string;
  let resetting: Server;
  let resettingPort: number;
  let secretId: string;
  const wait = (check: (s: string) => boolean, what: string) => waitForScreen(check, what, 20_000, pane);
  const press = (...k: string[]) => server.keys(pane, ...k);
  /**
   * From a record with its replay open back to the table: one Escape closes the replay, the next
   * the record. One at a time: two sent together can reach the UI in one read of the terminal
   * (a loaded machine), which Ink takes for one key (meta and escape), and the record stayed open.
   */
  const backToTable = async (replayText: string) => {
    press('Escape');
    await wait((s) => !s.includes(replayText), 'the replay closed');
    press('Escape');
    await wait(showing('DOMAIN+PATH'), 'the table');
  };
  const header = () => screen(pane).split('\n')[0] ?? '';
  const keyLine = (s: string) =>
    s
      .split('\n')
      .filter((l) => l.trim())
      .at(-1) ?? '';
  const rowWith = (s: string, text: string) => s.split('\n').find((l) => l.includes(text)) ?? '';
  /** The right-hand side of a record and its replay, wrapped lines joined again. */
  const replaySide = (s: string) =>
    s
      .split('\n')
      .filter((l) => l.includes(' │ '))
      .map((l) => l.slice(l.indexOf(' │ ') + 3).trimEnd())
      .join('');

  beforeAll(async () => {
    daemon = await startDaemon(home.path);
    sourceId = await createSource(daemon.url, daemon.token, 'shop');
    // A target that takes no request: it resets every connection, as a stopped app's port refuses
    // it, and keeps its port while the tests run. A port closed instead was once given to another
    // test's server running beside this one, which answered the replay.
    resetting = createServer((socket) => socket.resetAndDestroy());
    await new Promise<void>((resolve) => resetting.listen(0, '127.0.0.1', resolve));
    resettingPort = (resetting.address() as AddressInfo).port;
    await compose(daemon.url, daemon.token, sourceId, { pathnameUrl: '/api/first' });
    await compose(daemon.url, daemon.token, sourceId, {
      domainUrl: `http://127.0.0.1:${resettingPort}`,
      protocol: 'HTTP',
      pathnameUrl: '/api/unanswered',
    });
    // The daemon stores the authorization header as [REDACTED], which a replay never sends.
    secretId = (
      await compose(daemon.url, daemon.token, sourceId, {
        pathnameUrl: '/api/secret',
        requestHeaders: { authorization: 'Bearer s3cret' },
      })
    ).id;
    tmux(
      'new-session',
      '-d',
      '-s',
      pane,
      '-x',
      '80',
      '-y',
      '24',
      `env TAPLINE_URL=${daemon.url} TAPLINE_HOME=${home.path} TERM=xterm-256color node ${TAPLINE} ui shop; echo "tapline ui exited with $?"; sleep 600`,
    );
  });

  afterAll(async () => {
    tmux('kill-session', '-t', pane);
    await daemon?.stop();
    await new Promise((resolve) => resetting?.close(resolve));
    home.remove();
  });

  it('keeps "? help  q quit" on the key line, shows the mark in its row, and says paused while a record is open', async () => {
    const first = await wait((s) => s.includes('/api/secret') && s.includes('● following'), 'the table, following');
    expect(keyLine(first)).toMatch(/enter open .*\? help {2}q quit$/);
    press('m');
    const marked = await wait((s) => rowWith(s, '/api/secret').startsWith('◆ '), 'the mark in the row');
    expect(rowWith(marked, '/api/first')).not.toContain('◆');
    press('Enter');
    const open = await wait(showing('[REDACTED]'), 'the record');
    expect(open.split('\n')[0]).toContain('❚❚ paused');
    expect(keyLine(open)).toMatch(/esc back {2}q quit$/);
    press('Escape');
    await wait(
      (s) => s.includes('DOMAIN+PATH') && (s.split('\n')[0] ?? '').includes('❚❚ paused'),
      'back at the table, paused',
    );
  });

  it('a replay the UI cannot send says what to do from the UI, never the CLI-only --to', async () => {
    press('Enter');
    await wait(showing('[REDACTED]'), 'the record with the redacted header');
    press('r');
    const refused = replaySide(await wait(showing('Not replayed'), 'the refusal'));
    expect(refused).toContain("header authorization: --set-header 'authorization: <value>'");
    expect(refused).toContain(`tapline traffic replay shop ${secretId.slice(0, 13)} <the flags above>`);
    await backToTable('Not replayed');
    press('j', 'Enter');
    await wait(showing(`GET http://127.0.0.1:${resettingPort}/api/unanswered`), 'the record of the unanswered target');
    press('r');
    const failed = replaySide(await wait((s) => replaySide(s).includes('ECONNRESET'), 'the replay failing'));
    expect(failed).toContain(`cannot replay to http://127.0.0.1:${resettingPort} (ECONNRESET)`);
    expect(failed).toContain('r sends it again; c copies it as a curl command, to send elsewhere');
    expect(failed).not.toContain('--to');
    await backToTable('ECONNRESET');
  });

  it('the daemon stopped: ○ reconnecting…, a filter applied meanwhile waits for it, and all resumes when it is back', async () => {
    press('Space');
    await wait((s) => (s.split('\n')[0] ?? '').includes('● following'), 'following again');
    const port = new URL(daemon.url).port;
    await daemon.stop();
    await wait((s) => (s.split('\n')[0] ?? '').includes('○ reconnecting…'), 'the header saying reconnecting');
    expect(header()).not.toContain('● following');
    press('/');
    await wait(showing('esc clear'), 'the filter prompt');
    server.type(pane, 'status>=500');
    press('Enter');
    const waiting = await wait(
      (s) => !s.includes('esc clear') && s.includes('reconnecting, attempt'),
      'the filter applied, the status line back',
    );
    expect(waiting.split('\n')[0]).toContain('○ reconnecting…');

    daemon = await startDaemon(home.path, ['--port', port]);
    await wait(
      (s) => (s.split('\n')[0] ?? '').includes('● following') && s.includes('filter: status>=500'),
      'following the filter once the daemon is back',
    );
    await compose(daemon.url, daemon.token, sourceId, { pathnameUrl: '/api/after-restart', status: 503 });
    const after = await wait(showing('/api/after-restart'), 'an entry stored after the restart');
    expect(after).not.toContain('/api/first');
  });
});
