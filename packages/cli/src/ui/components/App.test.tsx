import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeApi, frameWith, KEYS, makeEntry, press, SOURCE, until } from '@tapline/testkit/cli';
import { App } from './App.js';

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

describe('App', () => {
  it('asks for a source when none is given, then shows its traffic', async () => {
    const api = new FakeApi([makeEntry({ trafficSourceId: SOURCE.id, pathname: '/api/orders' })]);
    api.sources = [
      { ...SOURCE, id: '0190a000-0000-7000-8000-0000000000f1', name: 'billing', trafficDomain: 'billing.example.com' },
      SOURCE,
    ];
    const view = render(<App api={api} />);
    cleanup = view.unmount;
    const picker = await frameWith(view.lastFrame, 'billing.example.com');
    expect(picker).toContain('Pick a traffic source');
    await press(view.stdin, 'j', KEYS.enter);
    const session = await frameWith(view.lastFrame, '/api/orders');
    expect(session.split('\n')[0]).toContain('shop');
  });

  it('says when there are no sources yet', async () => {
    const api = new FakeApi();
    api.sources = [];
    const view = render(<App api={api} />);
    cleanup = view.unmount;
    await frameWith(view.lastFrame, 'No traffic sources yet');
  });

  it('q quits from the picker: nothing reacts to keys afterwards', async () => {
    const api = new FakeApi([makeEntry()]);
    const view = render(<App api={api} />);
    cleanup = view.unmount;
    await frameWith(view.lastFrame, 'shop.example.com');
    await press(view.stdin, 'q', KEYS.enter);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(api.listCalls).toHaveLength(0);
    expect(view.lastFrame()).not.toContain('DOMAIN+PATH');
  });

  it('q quits from the table: the stream is closed', async () => {
    const api = new FakeApi([makeEntry()]);
    const view = render(<App api={api} source={SOURCE} />);
    cleanup = view.unmount;
    await until(
      () => api.following,
      (n) => n === 1,
    );
    await press(view.stdin, 'q');
    await until(
      () => api.following,
      (n) => n === 0,
    );
  });
});
