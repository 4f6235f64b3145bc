import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeApi, frameWith, KEYS, makeAlertRule, makeEntry, press, SOURCE, until } from '@tapline/testkit/cli';
import { Session } from './Session.js';

const size = { columns: 120, rows: 24 };
let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

function start(api: FakeApi) {
  const view = render(
    <Session
      api={api}
      source={SOURCE}
      size={size}
      feedOptions={{ flushMs: 20, statsMs: 50 }}
      alertsMs={50}
      onQuit={() => {}}
    />,
  );
  cleanup = view.unmount;
  return view;
}

const headerOf = (frame: string) => frame.split('\n')[0] ?? '';

describe('Session: firing alerts in the header and behind a', () => {
  it('counts the firing rules in the header, refreshed, and a lists them with route, condition, since and value', async () => {
    const api = new FakeApi([makeEntry({ pathname: '/checkout' })]);
    const since = new Date(Date.now() - 5 * 60_000).toISOString();
    const slow = makeAlertRule({ state: 'firing', stateSince: since, lastValue: 912, lastRequests: 40 });
    const errors = makeAlertRule({
      when: 'error_rate > 5%',
      metric: 'error_rate',
      threshold: 0.05,
      route: '/orders',
      method: 'POST',
      state: 'pending',
    });
    const quiet = makeAlertRule({
      when: 'requests < 10/min',
      metric: 'requests',
      operator: '<',
      threshold: 10,
      route: null,
      method: null,
      state: 'ok',
    });
    api.alertRules = [slow, errors, quiet];
    const { lastFrame, stdin } = start(api);
    await frameWith(lastFrame, '/checkout');
    expect(headerOf(await frameWith(lastFrame, '1 alert firing'))).toContain('▲ 1 alert firing');

    // A rule that starts firing shows without a key; one that resolves leaves the count.
    api.alertRules = [
      slow,
      { ...errors, state: 'firing', stateSince: new Date().toISOString(), lastValue: 0.125 },
      quiet,
    ];
    expect(headerOf(await frameWith(lastFrame, '2 alerts firing'))).toContain('▲ 2 alerts firing');
    expect(lastFrame()).toContain('a alerts');

    await press(stdin, 'a');
    const list = (await frameWith(lastFrame, 'firing now')).replace(/\u001b\[[0-9;]*m/g, '');
    expect(list).toMatch(/ROUTE +WHEN +SINCE +VALUE/);
    const rows = list.split('\n').filter((l) => /GET|POST/.test(l));
    // Longest firing first, pending and ok rules left out.
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(/GET \/checkout +p95 > 300ms +[\d-]+ [\d:.]+ \(5m\) +912 ms/);
    expect(rows[1]).toMatch(/POST \/orders +error_rate > 5% +[\d-]+ [\d:.]+ \(\d+s\) +12\.5%/);
    expect(list).not.toContain('requests < 10/min');

    await press(stdin, KEYS.escape);
    await frameWith(lastFrame, 'DOMAIN+PATH');
    api.alertRules = api.alertRules.map((r) => ({ ...r, state: 'ok' as const }));
    await until(
      () => headerOf(lastFrame() ?? ''),
      (h) => !h.includes('firing'),
    );
    await press(stdin, 'a');
    await frameWith(lastFrame, 'No rule is firing.');
  });
});
