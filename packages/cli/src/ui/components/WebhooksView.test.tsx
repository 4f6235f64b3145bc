import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import {
  FakeApi,
  frameWith,
  frameWithout,
  KEYS,
  makeEntry,
  makeWebhook,
  press,
  SOURCE,
  until,
} from '@tapline/testkit/cli';
import { Session } from './Session.js';

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

function start(api: FakeApi) {
  let quit = 0;
  const view = render(<Session api={api} source={SOURCE} size={{ columns: 100, rows: 24 }} onQuit={() => quit++} />);
  cleanup = view.unmount;
  return { ...view, quit: () => quit };
}

describe('webhooks (w)', () => {
  it('d asks first: every key but y keeps the webhook, y deletes it', async () => {
    const api = new FakeApi([makeEntry({ pathname: '/api/orders' })]);
    api.webhooks = [
      makeWebhook({ type: 'slack', value: 'https://hooks.slack.com/services/A' }),
      makeWebhook({ type: 'http', level: 'warning', value: 'https://ops.example.com/hook' }),
    ];
    const { lastFrame, stdin, quit } = start(api);
    await frameWith(lastFrame, '/api/orders');
    await press(stdin, 'w');
    await frameWith(lastFrame, 'https://ops.example.com/hook');
    await press(stdin, 'j', 'd');
    await frameWith(lastFrame, 'Delete the http webhook https://ops.example.com/hook?');
    await press(stdin, 'q');
    await frameWithout(lastFrame, 'Delete the');
    expect(quit()).toBe(0);
    expect(api.webhooks).toHaveLength(2);
    await press(stdin, 'd');
    await frameWith(lastFrame, 'Delete the http webhook');
    await press(stdin, 'y');
    await until(
      () => api.webhooks.length,
      (n) => n === 1,
    );
    await frameWith(lastFrame, 'deleted the http webhook');
    await until(
      () => lastFrame() ?? '',
      (f) => f.includes('Webhooks 1') && !f.split('\n').some((l) => l.startsWith('http ')),
    );
    expect(api.webhooks[0]?.type).toBe('slack');
    await press(stdin, KEYS.escape);
    await frameWith(lastFrame, 'DOMAIN+PATH');
  });

  it('shows a failed delete in the status line', async () => {
    const api = new FakeApi();
    api.webhooks = [makeWebhook()];
    api.deleteWebhook = async () => {
      throw new Error('forbidden: this token may not do that');
    };
    const { lastFrame, stdin } = start(api);
    await frameWith(lastFrame, 'DOMAIN+PATH');
    await press(stdin, 'w');
    await frameWith(lastFrame, 'hooks.slack.com');
    await press(stdin, 'd');
    // The question subscribes to keys just after it is drawn: answer once it is on screen.
    await frameWith(lastFrame, 'Delete the slack webhook');
    await press(stdin, 'y');
    await frameWith(lastFrame, 'could not delete the webhook: forbidden');
  });
});
