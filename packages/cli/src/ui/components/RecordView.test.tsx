import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeApi, frameWith, KEYS, makeEntry, press, recordOf, SOURCE, until } from '@tapline/testkit/cli';
import { RecordView } from './RecordView.js';

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

function start(api: FakeApi, rows = 12) {
  const entry = api.entries[0] ?? makeEntry();
  const notices: string[] = [];
  let back = 0;
  const view = render(
    <RecordView
      api={api}
      source={SOURCE}
      entry={entry}
      width={100}
      rows={rows}
      active
      onBack={() => back++}
      onNotice={(t) => notices.push(t)}
    />,
  );
  cleanup = view.unmount;
  return { ...view, notices, back: () => back };
}

describe('RecordView', () => {
  it('opens on the request (as docs/ui.md shows); Tab switches to the response and back', async () => {
    const api = new FakeApi([makeEntry({ method: 'POST', status: 201, pathname: '/api/orders' })]);
    const { lastFrame, stdin } = start(api, 30);
    const request = await frameWith(lastFrame, 'POST https://shop.example.com/api/orders');
    expect(request).toContain('accept: application/json');
    expect(request).toContain('page: 2');
    expect(request).toContain('"qty": 2');
    expect(request).not.toContain('"orderId"');
    await press(stdin, KEYS.tab);
    const response = await frameWith(lastFrame, '"orderId": "ord_42"');
    expect(response).toContain('content-type: application/json');
    await press(stdin, KEYS.tab);
    await frameWith(lastFrame, '"qty": 2');
  });

  it('scrolls with j/k and the arrows when the record is longer than the screen', async () => {
    const { lastFrame, stdin } = start(new FakeApi([makeEntry()]), 6);
    await frameWith(lastFrame, 'lines 1-4 of');
    await press(stdin, 'j', KEYS.down);
    await frameWith(lastFrame, 'lines 3-6 of');
    await press(stdin, 'k');
    await frameWith(lastFrame, 'lines 2-5 of');
    await press(stdin, 'G');
    await frameWith(lastFrame, /lines \d+-14 of 14/);
    await press(stdin, 'g');
    await frameWith(lastFrame, 'lines 1-4 of');
  });

  it('c copies the curl command to the clipboard', async () => {
    const api = new FakeApi([makeEntry({ pathname: '/api/orders' })]);
    const { lastFrame, stdin, notices } = start(api);
    await frameWith(lastFrame, 'x-request-id');
    await press(stdin, 'c');
    await until(
      () => api.clipboard,
      (c) => c !== null,
    );
    expect(api.clipboard).toContain("curl -X GET 'https://shop.example.com/api/orders?page=2'");
    expect(notices).toContain('curl command copied to the clipboard');
  });

  it('c warns when the command sends what was not recorded as sent (a placeholder body)', async () => {
    const entry = makeEntry({ method: 'POST' });
    const api = new FakeApi([entry]);
    api.getTraffic = async () => ({
      ...recordOf(entry),
      request: {
        headers: { 'content-type': 'image/png' },
        body: '[binary body: image/png, 48213 bytes]',
        queryParams: {},
      },
    });
    const { lastFrame, stdin, notices } = start(api);
    await frameWith(lastFrame, 'binary body');
    await press(stdin, 'c');
    await until(
      () => notices.length,
      (n) => n === 1,
    );
    expect(notices[0]).toMatch(/^curl command copied to the clipboard; warning: the body was not kept whole/);
  });

  it('c says when the copy went to the terminal clipboard (OSC 52) because no clipboard tool answered', async () => {
    const api = new FakeApi([makeEntry()]);
    api.copiedTo = 'terminal';
    const { lastFrame, stdin, notices } = start(api);
    await frameWith(lastFrame, 'x-request-id');
    await press(stdin, 'c');
    await until(
      () => notices,
      (n) => n.length > 0,
    );
    expect(notices).toEqual(['curl command sent to the terminal clipboard (OSC 52)']);
    expect(lastFrame()).not.toContain('the curl command:');
  });

  it('c shows the curl command when there is no clipboard; Esc hides it, Esc again goes back', async () => {
    const api = new FakeApi([makeEntry()]);
    api.clipboardWorks = false;
    const view = start(api);
    await frameWith(view.lastFrame, 'x-request-id');
    await press(view.stdin, 'c');
    const shown = await frameWith(view.lastFrame, 'the curl command:');
    expect(shown).toContain('curl -X GET');
    expect(view.notices.join()).toContain('clipboard unavailable');
    await press(view.stdin, KEYS.escape);
    await frameWith(view.lastFrame, 'x-request-id');
    expect(view.back()).toBe(0);
    await press(view.stdin, KEYS.escape);
    await until(view.back, (n) => n === 1);
  });

  it('says so in one line when the record cannot be loaded', async () => {
    const api = new FakeApi([makeEntry()]);
    api.getTraffic = async () => {
      throw new Error('Traffic Source not found');
    };
    const { lastFrame } = start(api);
    await frameWith(lastFrame, 'Could not load the record: Traffic Source not found');
  });
});
