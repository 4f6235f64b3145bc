import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeApi, frameWith, frameWithout, KEYS, makeEntry, press, SOURCE, until } from '@tapline/testkit/cli';
import { Session } from './Session.js';

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

function start(api: FakeApi, recent: string[] = [], saved: (readonly string[])[] = []) {
  const view = render(
    <Session
      api={api}
      source={SOURCE}
      size={{ columns: 100, rows: 24 }}
      feedOptions={{ flushMs: 20, statsMs: 50 }}
      onQuit={() => {}}
      recentFilters={recent}
      onRecentFilters={(list) => saved.push(list)}
    />,
  );
  cleanup = view.unmount;
  return view;
}

const mixed = () => [
  makeEntry({ status: 200, pathname: '/ok' }),
  makeEntry({ status: 503, pathname: '/boom' }),
  makeEntry({ status: 404, pathname: '/missing', method: 'POST' }),
];

describe('the / filter prompt', () => {
  it('validates as you type, pointing at the column of the mistake', async () => {
    const { lastFrame, stdin } = start(new FakeApi(mixed()));
    await frameWith(lastFrame, '/boom');
    await press(stdin, '/');
    await frameWith(lastFrame, 'esc clear');
    await press(stdin, ...'stauts>1');
    const bad = await frameWith(lastFrame, 'stauts>1');
    expect(bad).toContain('✗ col 1: unknown field "stauts"');
    await press(stdin, KEYS.enter);
    // Enter on a bad expression applies nothing and keeps the prompt open.
    expect(lastFrame()).toContain('✗ col 1');
  });

  it('several Backspaces in one chunk (typed fast, or a held key) each erase a character', async () => {
    const { lastFrame, stdin } = start(new FakeApi(mixed()));
    await frameWith(lastFrame, '/boom');
    await press(stdin, '/');
    await frameWith(lastFrame, 'esc clear');
    await press(stdin, ...'status>=5xy');
    await frameWith(lastFrame, 'status>=5xy');
    await press(stdin, '\u007F\u007F');
    const erased = await frameWith(lastFrame, '✓ enter to apply');
    expect(erased).toContain('/ status>=5 ');
    await press(stdin, '00\u007F0');
    await frameWith(lastFrame, '/ status>=500 ');
  });

  it('applies on Enter: the table reloads with only matching entries and keeps following them', async () => {
    const api = new FakeApi(mixed());
    const saved: (readonly string[])[] = [];
    const { lastFrame, stdin } = start(api, [], saved);
    await frameWith(lastFrame, '/boom');
    await press(stdin, '/');
    await frameWith(lastFrame, 'esc clear');
    await press(stdin, ...'status>=500');
    await frameWith(lastFrame, '✓ enter to apply');
    await press(stdin, KEYS.enter);
    const filtered = await frameWith(lastFrame, /filter: status>=500  ·  1 loaded/);
    expect(filtered).toContain('/boom');
    expect(filtered).not.toContain('/missing');
    expect(api.listCalls.at(-1)?.q).toBe('status>=500');
    expect(saved.at(-1)).toEqual(['status>=500']);
    await until(
      () => api.following,
      (n) => n === 1,
    );
    api.emit(makeEntry({ status: 200, pathname: '/fine' }), makeEntry({ status: 502, pathname: '/also-boom' }));
    const live = await frameWith(lastFrame, '/also-boom');
    expect(live).not.toContain('/fine');
  });

  it('Esc clears the filter; up and down recall recent filters', async () => {
    const api = new FakeApi(mixed());
    const { lastFrame, stdin } = start(api, ['method=POST', 'status=5xx']);
    await frameWith(lastFrame, '/boom');
    await press(stdin, '/');
    await frameWith(lastFrame, 'esc clear');
    await press(stdin, KEYS.up);
    await frameWith(lastFrame, 'method=POST');
    await press(stdin, KEYS.up);
    await frameWith(lastFrame, 'status=5xx');
    await press(stdin, KEYS.down, KEYS.enter);
    const post = await frameWith(lastFrame, /filter: method=POST  ·  1 loaded/);
    expect(post).toContain('/missing');
    expect(post).not.toContain('/boom');
    await press(stdin, '/');
    await frameWith(lastFrame, 'esc clear');
    await press(stdin, KEYS.escape);
    await frameWithout(lastFrame, 'filter:');
    await frameWith(lastFrame, '/boom');
    expect(api.listCalls.at(-1)?.q).toBe('');
  });
});
