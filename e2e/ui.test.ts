import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SpawnedDaemon, startDaemon, TAPLINE, tempHome } from './support/binaries.js';
import { compose, createSource } from './support/compose.js';

// A private tmux server per run, so the test never touches the developer's sessions.
const socket = `tapline-e2e-${process.pid}`;
const session = 'ui';
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
const screen = () => tmux('capture-pane', '-p', '-t', session);
const keys = (...k: string[]) => tmux('send-keys', '-t', session, ...k);
const type = (text: string) => tmux('send-keys', '-t', session, '-l', text);

/** Polls the pane until `check` holds; the failure shows the last screen. */
async function waitForScreen(check: (s: string) => boolean, what: string, timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = screen();
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
    const command = `TAPLINE_URL=${daemon.url} TAPLINE_HOME=${home.path} TERM=xterm-256color node ${TAPLINE} ui shop; echo "tapline ui exited with $?"; sleep 600`;
    tmux('new-session', '-d', '-s', session, '-x', '100', '-y', '30', command);
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

    // open, Tab to the request, back
    keys('Enter');
    await waitForScreen(showing('Response'), 'the record');
    keys('Tab');
    const request = await waitForScreen(showing('POST https://shop.example.com/api/orders'), 'the request side');
    expect(request).toContain('"qty": 2');
    keys('Escape');
    await waitForScreen((s) => s.includes('DOMAIN+PATH') && s.includes('filter: status>=500'), 'back at the table');

    // quit restores the terminal: the shell line after the UI is on a clean screen.
    keys('q');
    const after = await waitForScreen(showing('tapline ui exited with 0'), 'the exit');
    expect(after).not.toContain('DOMAIN+PATH');
  });
});
