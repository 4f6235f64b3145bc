import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeApi, frameWith, frameWithout, KEYS, makeEntry, press, SOURCE, until } from '@tapline/testkit/cli';
import { Session } from './Session.js';

const size = { columns: 100, rows: 24 };
const fast = { flushMs: 20, statsMs: 50 };
let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

function start(api: FakeApi, extra: { onQuit?: () => void; pageSize?: number; recent?: string[] } = {}) {
  const view = render(
    <Session
      api={api}
      source={SOURCE}
      size={size}
      feedOptions={{ ...fast, ...(extra.pageSize ? { pageSize: extra.pageSize } : {}) }}
      onQuit={extra.onQuit ?? (() => {})}
      recentFilters={extra.recent ?? []}
    />,
  );
  cleanup = view.unmount;
  return view;
}

const history = (n: number) =>
  Array.from({ length: n }, (_, i) =>
    makeEntry({ pathname: `/old/${i}`, createdAt: new Date(Date.now() - 60_000 + i * 10).toISOString() }),
  );

describe('Session: the live table', () => {
  it('shows the newest page, then follows new entries at the top', async () => {
    const api = new FakeApi(history(3));
    const { lastFrame } = start(api);
    await frameWith(lastFrame, '/old/2');
    await until(
      () => api.following,
      (n) => n === 1,
    );
    api.emit(makeEntry({ method: 'POST', status: 201, pathname: '/api/new' }));
    const frame = await frameWith(lastFrame, '/api/new');
    const rows = frame.split('\n');
    expect(rows.findIndex((l) => l.includes('/api/new'))).toBeLessThan(rows.findIndex((l) => l.includes('/old/2')));
    expect(frame).toContain('● following');
  });

  it('the header counts every loaded entry by level, with p50/p95, however old (37 entries of an hour ago)', async () => {
    const hourAgo = Date.now() - 3_600_000;
    const old = Array.from({ length: 37 }, (_, i) =>
      makeEntry({
        status: i < 30 ? 200 : i < 35 ? 404 : 500,
        elapsedTime: i + 1,
        pathname: `/hist/${i}`,
        createdAt: new Date(hourAgo + i).toISOString(),
      }),
    );
    const { lastFrame } = start(new FakeApi(old));
    const frame = await frameWith(lastFrame, '37 loaded');
    expect(frame.split('\n')[0]).toMatch(/0\.0 req\/s {2}INFO 30 WARN 5 FATAL 2 {2}p50 19ms p95 36ms/);
  });

  it('space pauses (new entries wait below the fold and are counted) and resumes', async () => {
    const api = new FakeApi(history(30));
    const { lastFrame, stdin } = start(api);
    await frameWith(lastFrame, '/old/29');
    await until(
      () => api.following,
      (n) => n === 1,
    );
    await press(stdin, ' ');
    await frameWith(lastFrame, 'paused');
    api.emit(makeEntry({ pathname: '/arrived/while/paused' }));
    const paused = await frameWith(lastFrame, 'paused · 1 new');
    expect(paused).not.toContain('/arrived/while/paused');
    await press(stdin, ' ');
    const resumed = await frameWith(lastFrame, '/arrived/while/paused');
    expect(resumed).toContain('● following');
  });

  it('j/k and arrows move the selection; Enter opens the selected record; Esc goes back', async () => {
    const api = new FakeApi(history(5));
    const { lastFrame, stdin } = start(api);
    await frameWith(lastFrame, '/old/4');
    await press(stdin, 'j', 'j', KEYS.down, 'k');
    await frameWith(lastFrame, 'paused');
    await press(stdin, KEYS.enter);
    await frameWith(lastFrame, 'Response');
    const record = await frameWith(lastFrame, 'x-request-id');
    expect(record.split('\n')[1]).toContain('/old/2');
    await press(stdin, KEYS.escape);
    await frameWith(lastFrame, 'DOMAIN+PATH');
    await press(stdin, KEYS.up, KEYS.enter);
    expect((await frameWith(lastFrame, 'x-request-id')).split('\n')[1]).toContain('/old/3');
  });

  it('g and G jump to the newest and the oldest entry', async () => {
    const api = new FakeApi(history(8));
    const { lastFrame, stdin } = start(api);
    await frameWith(lastFrame, '/old/7');
    await press(stdin, 'G');
    await frameWith(lastFrame, 'paused');
    await press(stdin, KEYS.enter);
    expect((await frameWith(lastFrame, 'x-request-id')).split('\n')[1]).toContain('/old/0');
    await press(stdin, KEYS.escape);
    await frameWith(lastFrame, 'DOMAIN+PATH');
    await press(stdin, 'g', KEYS.enter);
    expect((await frameWith(lastFrame, 'x-request-id')).split('\n')[1]).toContain('/old/7');
  });

  it('PgDn pages into history, fetching older pages on demand; PgUp pages back', async () => {
    const api = new FakeApi(history(120));
    const { lastFrame, stdin } = start(api, { pageSize: 40 });
    await frameWith(lastFrame, '/old/119');
    expect(api.listCalls).toHaveLength(1);
    await press(stdin, KEYS.pageDown, KEYS.pageDown);
    await until(
      () => api.listCalls.length,
      (n) => n >= 2,
    );
    expect(api.listCalls[1]?.before).toBeDefined();
    // Keep paging, as a user would, until the oldest entry (three pages back) is on screen.
    await until(
      () => lastFrame() ?? '',
      (f) => {
        if (/\/old\/0\s/.test(f)) return true;
        stdin.write(KEYS.pageDown);
        return false;
      },
    );
    await frameWith(lastFrame, '120 loaded');
    await press(stdin, KEYS.pageUp);
    await frameWithout(lastFrame, '/old/0 ');
  });

  it('shows the header line: requests per second, counts by level, p50/p95', async () => {
    const recent = (ms: number, status: number, latency: number) =>
      makeEntry({ status, elapsedTime: latency, createdAt: new Date(Date.now() - ms).toISOString() });
    const api = new FakeApi([recent(100, 200, 10), recent(200, 200, 20), recent(300, 404, 30), recent(400, 503, 400)]);
    const { lastFrame } = start(api);
    const frame = await frameWith(lastFrame, 'FATAL 1');
    const header = frame.split('\n')[0] ?? '';
    expect(header).toContain('INFO 2');
    expect(header).toContain('WARN 1');
    expect(header).toContain('0.4 req/s');
    expect(header).toMatch(/p50 20ms p95 400ms/);
  });

  it('q quits', async () => {
    let quit = 0;
    const { lastFrame, stdin } = start(new FakeApi(history(1)), { onQuit: () => quit++ });
    await frameWith(lastFrame, '/old/0');
    await press(stdin, 'q');
    await until(
      () => quit,
      (n) => n === 1,
    );
  });

  it('? shows the help; Esc closes it', async () => {
    const { lastFrame, stdin } = start(new FakeApi(history(1)));
    await frameWith(lastFrame, '/old/0');
    await press(stdin, '?');
    const help = await frameWith(lastFrame, 'Filter prompt');
    expect(help).toContain('pause or resume');
    await press(stdin, KEYS.escape);
    await frameWith(lastFrame, 'DOMAIN+PATH');
  });

  it('puts errors in the status line, never a stack', async () => {
    const api = new FakeApi();
    api.listTraffic = async () => {
      throw new Error(
        'cannot reach the Tapline daemon at http://127.0.0.1:1 (ECONNREFUSED)\n    at fetch (node:internal)',
      );
    };
    const { lastFrame } = start(api);
    const frame = await frameWith(lastFrame, 'ECONNREFUSED');
    expect(frame).not.toContain('node:internal');
  });

  it('says when the stream is reconnecting, and clears it when live again', async () => {
    const api = new FakeApi(history(1));
    const { lastFrame } = start(api);
    await until(
      () => api.following,
      (n) => n === 1,
    );
    api.status({ state: 'reconnecting', attempt: 3, reason: 'ECONNREFUSED', retryInMs: 1000 });
    const frame = await frameWith(lastFrame, 'reconnecting, attempt 3');
    expect(frame.split('\n')[0]).toContain('reconnecting');
    api.status({ state: 'live', cursor: undefined, reconnected: true });
    await frameWith(lastFrame, '● following');
  });

  it('coalesces bursts: 500 entries cost a handful of renders and all arrive', async () => {
    const api = new FakeApi();
    const { lastFrame, frames } = start(api);
    await until(
      () => api.following,
      (n) => n === 1,
    );
    await frameWith(lastFrame, 'waiting for new entries');
    const before = frames.length;
    for (let i = 0; i < 500; i++) api.emit(makeEntry({ pathname: `/burst/${i}` }));
    await frameWith(lastFrame, '500 loaded');
    expect(lastFrame()).toContain('/burst/499');
    expect(frames.length - before).toBeLessThan(20);
  });
});
