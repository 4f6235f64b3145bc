import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, type SpawnedDaemon, startDaemon, tempHome } from './support/binaries.js';
import { compose, createSource } from './support/compose.js';
import { tmuxServer } from './support/tmux.js';

const server = tmuxServer('ui-alerts');
const pane = 'alerts';
const header = () => server.styled(pane).split('\n')[0] ?? '';
const wait = (check: (s: string) => boolean, what: string) => server.waitForScreen(pane, check, what);

describe('tapline ui: firing alerts in a real terminal (tmux, 120x30, colour)', () => {
  const home = tempHome();
  let daemon: SpawnedDaemon;
  let sourceId: string;

  beforeAll(async () => {
    daemon = await startDaemon(home.path, ['--allow-private-webhooks', '--alert-interval', '1s']);
    sourceId = await createSource(daemon.url, daemon.token, 'shop');
    const run = (args: string[]) => cli(args, { home: home.path, env: { TAPLINE_URL: daemon.url } });
    // The webhook only gives the rule a target; nothing listens there and nothing here needs a message.
    const hook = JSON.parse(
      (
        await run([
          '--json',
          'webhooks',
          'add',
          'shop',
          '--type',
          'http',
          '--level',
          'fatal',
          '--value',
          'http://127.0.0.1:9/hook',
        ])
      ).stdout,
    ) as { id: string };
    const added = await run([
      'alerts',
      'add',
      'shop',
      '--when',
      'requests > 0/min',
      '--route',
      '/checkout',
      '--window',
      '1m',
      '--notify',
      hook.id,
    ]);
    expect(added.exitCode, added.stderr).toBe(0);
    server.startUi(pane, 'shop', { url: daemon.url, home: home.path });
  });

  afterAll(async () => {
    server.kill();
    await daemon?.stop();
    home.remove();
  });

  it('the header says when a rule fires, in red, without a key; a lists it; esc comes back', async () => {
    const first = await wait((s) => s.includes('● following'), 'the traffic, following');
    expect(first.split('\n')[0]).not.toContain('firing');
    expect(
      first
        .split('\n')
        .filter((l) => l.trim())
        .at(-1),
    ).toContain('a alerts');

    await compose(daemon.url, daemon.token, sourceId, { pathnameUrl: '/checkout', elapsedTime: 40 });
    await wait((s) => (s.split('\n')[0] ?? '').includes('▲ 1 alert firing'), 'the count in the header');
    // Red (31, or 91 bright, or 38;5;1/9) and bold, as the CLI's list marks a firing rule.
    expect(header()).toMatch(
      /\u001B\[[0-9;]*(?:31|91|38;5;(?:1|9))[;m][^\u001B]*(?:\u001B\[[0-9;]*m)*[^\u001B]*▲ 1 alert firing/,
    );

    server.keys(pane, 'a');
    const list = await wait(
      (s) => s.includes('Alerts firing now · 1') && /\/checkout +requests/.test(s),
      'the firing rules',
    );
    expect(list).toMatch(/ROUTE +WHEN +SINCE +VALUE/);
    expect(list).toMatch(/\/checkout +requests > 0\/min +[\d-]+ [\d:.]+ \(\d+s\) +[\d.]+\/min +1 /);

    server.keys(pane, 'Escape');
    await wait((s) => s.includes('DOMAIN+PATH'), 'back at the table');
    server.keys(pane, 'q');
    await wait((s) => s.includes('tapline ui exited with 0'), 'the exit');
  });
});
