import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, UnreachableError } from '@tapline/shared';
import { FakeApi, frameWith, KEYS, makeEntry, press, SOURCE, until } from '@tapline/testkit/cli';
import { Session } from './Session.js';

/** What the header, the rows and the key line tell the user about the state of things. */

const fast = { flushMs: 20, statsMs: 50 };
let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

function start(api: FakeApi, columns = 100) {
  const view = render(
    <Session api={api} source={SOURCE} size={{ columns, rows: 24 }} feedOptions={fast} onQuit={() => {}} />,
  );
  cleanup = view.unmount;
  return view;
}

const history = (n: number) =>
  Array.from({ length: n }, (_, i) =>
    makeEntry({ pathname: `/old/${i}`, createdAt: new Date(Date.now() - 60_000 + i * 10).toISOString() }),
  );
const header = (frame: string) => frame.split('\n')[0] ?? '';
const keyLine = (frame: string) => frame.split('\n').at(-1) ?? '';
const rowOf = (frame: string, text: string) => frame.split('\n').find((l) => l.includes(text)) ?? '';

describe('the header says what the live table is doing', () => {
  it('○ reconnecting… while the stream is down, never ● following', async () => {
    const api = new FakeApi(history(2));
    const { lastFrame } = start(api);
    await until(
      () => api.following,
      (n) => n === 1,
    );
    await frameWith(lastFrame, '● following');
    api.status({
      state: 'reconnecting',
      attempt: 1,
      reason: 'cannot reach the Tapline daemon at http://127.0.0.1:1 (ECONNREFUSED)',
      retryInMs: 250,
    });
    const down = await frameWith(lastFrame, '○ reconnecting…');
    expect(header(down)).not.toContain('following');
    api.status({ state: 'live', cursor: undefined, reconnected: true });
    await frameWith(lastFrame, '● following');
  });

  it('✕ not following once the follower gives up (a token refused), with the reason in the status line', async () => {
    const api = new FakeApi(history(2));
    const { lastFrame } = start(api);
    await until(
      () => api.following,
      (n) => n === 1,
    );
    api.giveUp(new ApiError(401, { statusCode: 401, error: 'Invalid token', code: 'token_invalid' }));
    const frame = await frameWith(lastFrame, 'Invalid token');
    expect(header(frame)).toContain('✕ not following');
    expect(header(frame)).not.toMatch(/● following|reconnecting/);
  });

  it('a first page that cannot be loaded is tried again: ○ reconnecting…, then the table, following', async () => {
    const api = new FakeApi(history(2));
    const list = api.listTraffic;
    let failures = 2;
    api.listTraffic = async (...args) => {
      if (failures-- > 0) throw new UnreachableError('http://127.0.0.1:1', 'ECONNREFUSED');
      return list(...args);
    };
    const { lastFrame } = start(api);
    const down = await frameWith(lastFrame, '○ reconnecting…');
    expect(down).toContain('ECONNREFUSED');
    const up = await frameWith(lastFrame, '/old/1', 3000);
    await until(
      () => api.following,
      (n) => n === 1,
    );
    expect(header(up)).not.toContain('reconnecting');
    await frameWith(lastFrame, '● following');
  });

  it('a record open pauses the table: ❚❚ paused, arrivals counted, back on the row opened', async () => {
    const api = new FakeApi(history(3));
    const { lastFrame, stdin } = start(api);
    await until(
      () => api.following,
      (n) => n === 1,
    );
    await frameWith(lastFrame, '● following');
    await press(stdin, KEYS.enter);
    const open = await frameWith(lastFrame, 'x-request-id');
    expect(header(open)).toContain('❚❚ paused');
    api.emit(makeEntry({ pathname: '/arrived/meanwhile' }));
    await frameWith(lastFrame, 'paused · 1 new');
    await press(stdin, KEYS.escape);
    const back = await frameWith(lastFrame, 'DOMAIN+PATH');
    expect(back).not.toContain('/arrived/meanwhile');
    expect(header(back)).toContain('❚❚ paused');
    await press(stdin, KEYS.enter);
    expect((await frameWith(lastFrame, 'x-request-id')).split('\n')[1]).toContain('/old/2');
  });
});

describe('m marks the selected entry, and its row shows it', () => {
  it('shows ◆ on the marked row only, and moves it when another is marked', async () => {
    const api = new FakeApi(history(3));
    const { lastFrame, stdin } = start(api);
    await frameWith(lastFrame, '/old/0');
    expect(lastFrame()).not.toContain('◆');
    await press(stdin, 'j', 'm');
    const marked = await frameWith(lastFrame, '◆');
    expect(rowOf(marked, '/old/1')).toMatch(/^◆ /);
    expect(rowOf(marked, '/old/2')).not.toContain('◆');
    await press(stdin, 'j', 'm');
    await until(
      () => lastFrame() ?? '',
      (f) => rowOf(f, '/old/0').startsWith('◆ '),
    );
    expect(rowOf(lastFrame() ?? '', '/old/1')).not.toContain('◆');
  });
});

describe('the key line at 80 columns', () => {
  it('keeps "? help  q quit" on the table, dropping lesser keys to fit', async () => {
    const { lastFrame } = start(new FakeApi(history(1)), 80);
    const frame = await frameWith(lastFrame, '/old/0');
    expect(keyLine(frame)).toMatch(/enter open .*\? help {2}q quit$/);
    expect(keyLine(frame).length).toBeLessThanOrEqual(80);
  });

  it('keeps "esc back  q quit" on a record', async () => {
    const { lastFrame, stdin } = start(new FakeApi(history(1)), 80);
    await frameWith(lastFrame, '/old/0');
    await press(stdin, KEYS.enter);
    const frame = await frameWith(lastFrame, 'x-request-id');
    expect(keyLine(frame)).toMatch(/r replay .*esc back {2}q quit$/);
  });
});
