import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeApi, frameWith, KEYS, makeEntry, makeLog, press, SOURCE } from '@tapline/testkit/cli';
import { Session } from './Session.js';

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

describe('core logs (l)', () => {
  it('lists the core logs; Enter shows the stack; Esc goes back to the list, then to the table', async () => {
    const api = new FakeApi([makeEntry({ pathname: '/api/orders' })]);
    api.logs = [
      makeLog({ title: 'Payment gateway down', layer: 'Application' }),
      makeLog({ title: 'Database timeout', stack: 'Error: timeout\n    at query (db.ts:10:5)' }),
    ];
    const view = render(
      <Session
        api={api}
        source={SOURCE}
        size={{ columns: 100, rows: 24 }}
        feedOptions={{ flushMs: 20 }}
        onQuit={() => {}}
      />,
    );
    cleanup = view.unmount;
    const { lastFrame, stdin } = view;
    await frameWith(lastFrame, '/api/orders');
    await press(stdin, 'l');
    const list = await frameWith(lastFrame, 'Payment gateway down');
    expect(list).toContain('Database timeout');
    expect(list).toContain('2 in all');
    await press(stdin, 'j', KEYS.enter);
    const detail = await frameWith(lastFrame, 'at query (db.ts:10:5)');
    expect(detail).toContain('layer Database');
    await press(stdin, KEYS.escape);
    await frameWith(lastFrame, 'Payment gateway down');
    await press(stdin, KEYS.escape);
    await frameWith(lastFrame, 'DOMAIN+PATH');
  });

  it('says when there are none', async () => {
    const view = render(
      <Session api={new FakeApi()} source={SOURCE} size={{ columns: 100, rows: 24 }} onQuit={() => {}} />,
    );
    cleanup = view.unmount;
    await frameWith(view.lastFrame, 'DOMAIN+PATH');
    await press(view.stdin, 'l');
    await frameWith(view.lastFrame, 'No core logs for this source.');
  });
});
