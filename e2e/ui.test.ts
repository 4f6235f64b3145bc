import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SpawnedDaemon, startDaemon, TAPLINE, tempHome } from './support/binaries.js';
import { compose, createSource } from './support/compose.js';

// A private tmux server per run, so the test never touches the developer's sessions.
const socket = `tapline-e2e-${process.pid}`;
const session = 'ui';
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
const screen = (pane = session) => tmux('capture-pane', '-p', '-t', pane);
/** The pane with its styling, as SGR escape sequences (`capture-pane -e`). */
const styled = (pane = session) => tmux('capture-pane', '-p', '-e', '-t', pane);
const keys = (...k: string[]) => tmux('send-keys', '-t', session, ...k);
const type = (text: string) => tmux('send-keys', '-t', session, '-l', text);

// tmux writes a colour as 30-37/90-97 or 38;5;n; inverse video as 7, alone or among others.
const FOREGROUND = /\u001B\[(?:[0-9;]*;)?(?:3[0-8]|9[0-7])[;m]/;

/** Whether `text` is drawn in inverse video: replays the SGR codes of the line up to it. */
function inverseAt(line: string, text: string): boolean {
  const at = line.indexOf(text);
  if (at < 0) throw new Error(`"${text}" is not on the line ${JSON.stringify(line)}`);
  let inverse = false;
  for (const m of line.slice(0, at).matchAll(/\u001B\[([0-9;]*)m/g)) {
    const codes = (m[1] || '0').split(';').map(Number);
    for (let i = 0; i < codes.length; i++) {
      const code = codes[i];
      if (code === 38 || code === 48) i += codes[i + 1] === 5 ? 2 : 4;
      else if (code === 0 || code === 27) inverse = false;
      else if (code === 7) inverse = true;
    }
  }
  return inverse;
}
const lineWith = (pane: string, text: string) => styled(pane).split('\n').find((l) => l.includes(text)) ?? '';

/** Polls the pane until `check` holds; the failure shows the last screen. */
async function waitForScreen(check: (s: string) => boolean, what: string, timeoutMs = 20_000, pane = session): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = screen(pane);
    if (check(s)) return s;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the screen was:\n${s}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
const showing = (text: string) => (s: string) => s.includes(text);

describe('tapline ui in a real terminal (tmux, 100x30)', () => {
  const home = tempHome();
  let daemon: SpawnedDaemon;
  let sourceId: string;

  beforeAll(async () => {
    daemon = await startDaemon(home.path);
    sourceId = await createSource(daemon.url, daemon.token, 'shop');
    await compose(daemon.url, daemon.token, sourceId, { pathnameUrl: '/api/health' });
    await compose(daemon.url, daemon.token, sourceId, { pathnameUrl: '/api/orders', method: 'POST', status: 503, elapsedTime: 840, requestBody: { sku: 'A-1', qty: 2 } });
    // CI=true as on a CI runner: the UI must still redraw in place and colour. No DISPLAY, so
    // there is no clipboard tool and `c` goes through OSC 52, which tmux keeps as a paste buffer.
    const ui = (env: string) =>
      `env -u DISPLAY -u WAYLAND_DISPLAY CI=true ${env} TAPLINE_URL=${daemon.url} TAPLINE_HOME=${home.path} TERM=xterm-256color node ${TAPLINE} ui shop; echo "tapline ui exited with $?"; sleep 600`;
    tmux('new-session', '-d', '-s', session, '-x', '100', '-y', '30', ui(''));
    tmux('set-option', '-g', 'set-clipboard', 'on');
    tmux('new-session', '-d', '-s', 'nocolor', '-x', '100', '-y', '30', ui('NO_COLOR=1'));
  });

  afterAll(async () => {
    try {
      tmux('kill-server');
    } catch {
      // Already gone.
    }
    await daemon?.stop();
    home.remove();
  });

  it('follows, filters, opens a record, goes back and quits', async () => {
    const first = await waitForScreen((s) => s.includes('/api/orders') && s.includes('● following'), 'the history, then following');
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
    expect(lines.findIndex((l) => l.includes('/api/live'))).toBeLessThan(lines.findIndex((l) => l.includes('/api/health')));

    // filter
    keys('/');
    await waitForScreen(showing('esc clear'), 'the filter prompt');
    type('status>=500');
    await waitForScreen(showing('✓ enter to apply'), 'the filter checked');
    keys('Enter');
    const filtered = await waitForScreen((s) => s.includes('filter: status>=500') && s.includes('/api/orders'), 'the filtered table');
    expect(filtered).not.toContain('/api/health');
    expect(filtered).not.toContain('/api/live');

    // open on the request (its tab in inverse video), Tab to the response, copy, back
    keys('Enter');
    const request = await waitForScreen(showing('POST https://shop.example.com/api/orders'), 'the record, request side');
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
    await waitForScreen((s) => s.includes('/api/orders') && s.includes('● following'), 'the uncoloured UI', 20_000, 'nocolor');
    expect(styled('nocolor')).not.toMatch(FOREGROUND);
    // Rows 2 and 3: the selected newest entry and the one below it.
    const [, , selected = '', next = ''] = styled('nocolor').split('\n');
    expect(inverseAt(selected, 'shop.example.com')).toBe(true);
    expect(inverseAt(next, 'shop.example.com')).toBe(false);
  });
});
