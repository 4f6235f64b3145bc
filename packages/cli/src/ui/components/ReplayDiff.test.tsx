import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { usage } from '../../exit-codes.js';
import { FakeApi, frameWith, KEYS, makeEntry, press, SOURCE } from '@tapline/testkit/cli';
import { createClient, type HttpTrafficRecord } from '@tapline/shared';
import { createUiApi } from '../client-api.js';
import { RecordView } from './RecordView.js';
import { Session } from './Session.js';

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

function record(api: FakeApi, width = 120) {
  const entry = api.entries[0] ?? makeEntry();
  const view = render(
    <RecordView
      api={api}
      source={SOURCE}
      entry={entry}
      width={width}
      rows={30}
      active
      onBack={() => {}}
      onNotice={() => {}}
    />,
  );
  cleanup = view.unmount;
  return view;
}

describe('RecordView: r replays', () => {
  it('sends the record again and shows the answer beside the recorded one; esc returns', async () => {
    const api = new FakeApi([makeEntry({ status: 503, pathname: '/api/orders' })]);
    api.replyWith = {
      status: 201,
      statusText: 'Created',
      headers: { 'x-served-by': 'replay' },
      body: { replayed: true },
      elapsedTime: 4,
    };
    const { lastFrame, stdin } = record(api);
    await frameWith(lastFrame, 'x-request-id');
    await press(stdin, 'r');
    const frame = await frameWith(lastFrame, 'x-served-by: replay');
    expect(api.replayed.map((r) => r.pathname)).toEqual(['/api/orders']);
    const [header, first] = frame.split('\n').filter((l) => l.includes('│'));
    expect(header).toMatch(/^Recorded\s+│ Replayed now/);
    expect(first).toMatch(/^503 FATAL in 12 ms\s+│ 201 INFO in 4 ms/);
    expect(frame).toMatch(/"ok": true,\s+│ {3}"replayed": true/);
    expect(frame).toMatch(/ Response {3}Replay/);
    await press(stdin, KEYS.escape);
    await frameWith(lastFrame, 'accept: application/json');
    expect(lastFrame()).not.toContain('│');
  });

  it('shows why it was not sent: each redacted value, and the command that can fill it in', async () => {
    const api = new FakeApi([makeEntry()]);
    api.replyWith = usage(
      'the recorded request has 1 redacted value, and "[REDACTED]" is never sent; give each:',
      "header authorization: --set-header 'authorization: <value>'",
    );
    const { lastFrame, stdin } = record(api);
    await frameWith(lastFrame, 'x-request-id');
    await press(stdin, 'r');
    const frame = await frameWith(lastFrame, 'Not replayed');
    expect(frame).toContain('header authorization: --set-header');
  });
});

describe('RecordView: a replay that fails says what to do in the UI', () => {
  /** The UI's own replay (ui/client-api.ts), which the terminal UI runs. */
  const ui = createUiApi(createClient({ baseUrl: 'http://127.0.0.1:1' }), async () => 'clipboard');
  const uiReplay = (r: HttpTrafficRecord, signal: AbortSignal) => ui.replay(r, signal);

  /** The right-hand side (the replay), its wrapped lines joined again. */
  const replaySide = (frame: string) =>
    frame
      .split('\n')
      .filter((l) => l.includes(' │ '))
      .map((l) => l.slice(l.indexOf(' │ ') + 3))
      .join('');

  async function closedPort(): Promise<number> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    return port;
  }

  it('a target that does not answer: r to try again, c to send it elsewhere, never the CLI-only --to', async () => {
    const port = await closedPort();
    const api = new FakeApi([makeEntry({ domain: `127.0.0.1:${port}`, protocol: 'HTTP', pathname: '/api/orders' })]);
    api.replay = uiReplay;
    const { lastFrame, stdin } = record(api, 100);
    await frameWith(lastFrame, 'x-request-id');
    await press(stdin, 'r');
    await frameWith(lastFrame, 'Not replayed');
    const said = replaySide(await frameWith(lastFrame, /ECONN/));
    expect(said).toContain(`cannot replay to http://127.0.0.1:${port} (ECONNREFUSED)`);
    expect(said).toContain('r sends it again; c copies it as a curl command, to send elsewhere');
    expect(said).not.toContain('--to');
  });

  it('values the UI cannot fill in: names each, and the command that sends it from a shell', async () => {
    const entry = makeEntry();
    const api = new FakeApi([entry]);
    api.replay = (r, signal) =>
      uiReplay({ ...r, request: { ...r.request, headers: { authorization: '[REDACTED]' } } }, signal);
    const { lastFrame, stdin } = record(api, 100);
    await frameWith(lastFrame, 'x-request-id');
    await press(stdin, 'r');
    const said = replaySide(await frameWith(lastFrame, 'Not replayed'));
    expect(said).toContain("header authorization: --set-header 'authorization: <value>'");
    expect(said).toContain(`tapline traffic replay ${SOURCE.name} ${entry.id.slice(0, 13)} <the flags above>`);
  });
});

describe('Session: m marks, = diffs', () => {
  it('diffs the selected entry against the marked one', async () => {
    const api = new FakeApi([
      makeEntry({ status: 200, pathname: '/api/a', createdAt: new Date(Date.now() - 2000).toISOString() }),
      makeEntry({ status: 500, pathname: '/api/b', createdAt: new Date(Date.now() - 1000).toISOString() }),
    ]);
    const view = render(
      <Session
        api={api}
        source={SOURCE}
        size={{ columns: 120, rows: 24 }}
        feedOptions={{ flushMs: 20, statsMs: 50 }}
        onQuit={() => {}}
      />,
    );
    cleanup = view.unmount;
    const { lastFrame, stdin } = view;
    await frameWith(lastFrame, '/api/a');
    await press(stdin, '=');
    await frameWith(lastFrame, 'mark an entry with m first');
    await press(stdin, 'm');
    await frameWith(lastFrame, /marked GET 500 \/api\/b/);
    await press(stdin, 'j', '=');
    const frame = await frameWith(lastFrame, /~ status\s+500 -> 200/);
    expect(frame).toContain('Diff: marked (A) against selected (B)');
    expect(frame).toMatch(/~ url\s+"https:\/\/shop\.example\.com\/api\/b" -> "https:\/\/shop\.example\.com\/api\/a"/);
    expect(frame).toMatch(/~ request\.headers\["x-request-id"\]/);
    await press(stdin, KEYS.escape);
    await frameWith(lastFrame, 'm mark  = diff');
  });
});
