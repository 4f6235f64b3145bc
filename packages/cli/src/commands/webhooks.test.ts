import { contract } from '@tapline/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, hashPassword } from '@tapline/daemon';
import { startHarness, type Harness, type TestUser } from '@tapline/testkit/daemon';
import { readCredentials } from '../credentials.js';
import { EXIT } from '../exit-codes.js';
import { run } from '@tapline/testkit/cli';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let h: Harness;
let ana: TestUser;
let sourceId: string;
const as = (user: TestUser, ...argv: string[]) => run(['--url', h.url, '--token', user.token, ...argv]);
const DISCORD = 'https://discord.com/api/webhooks/123/abc';

beforeAll(async () => {
  h = await startHarness();
  ana = await h.user();
  sourceId = (await as(ana, 'sources', 'add', 'shop', 'shop.example.com', '--json')).json<{ id: string }>().id;
});
afterAll(() => h.close());

describe('tapline webhooks', () => {
  it('adds, lists and deletes', async () => {
    const added = await as(
      ana,
      'webhooks',
      'add',
      'shop',
      '--type',
      'discord',
      '--level',
      'fatal',
      '--value',
      DISCORD,
      '--json',
    );
    expect(added.code, added.stderr).toBe(EXIT.OK);
    const hook = added.json<{ id: string; type: string }>();
    expect(hook).toMatchObject({ type: 'discord', level: 'fatal', value: DISCORD, trafficSourceId: sourceId });

    const http = await as(
      ana,
      'webhooks',
      'add',
      'shop',
      '--type',
      'HTTP',
      '--level',
      'WARNING',
      '--value',
      'https://hooks.example.com/t',
    );
    expect(http.stdout).toMatch(
      /^added http webhook .* for warning traffic -> https:\/\/hooks\.example\.com\/t\nsecret [0-9a-f]{64}\n$/,
    );
    expect(http.stderr).toMatch(/shown only once/);

    const listed = await as(ana, 'webhooks', 'list', 'shop', '--json');
    const api = await (
      await h.fetch(`/webhooks/${sourceId}`, { headers: { authorization: `Bearer ${ana.token}` } })
    ).json();
    expect(listed.json()).toEqual(api);
    expect((await as(ana, 'webhooks', 'list', 'shop')).stdout).toContain(DISCORD);

    const refused = await as(ana, 'webhooks', 'delete', hook.id);
    expect(refused.code).toBe(EXIT.USAGE);
    expect((await as(ana, 'webhooks', 'delete', hook.id, '--yes')).code).toBe(EXIT.OK);
    expect((await as(ana, 'webhooks', 'delete', hook.id, '--yes')).code).toBe(EXIT.NOT_FOUND);
    expect((await as(ana, 'webhooks', 'list', 'shop', '--json')).json<{ meta: { total: number } }>().meta.total).toBe(
      1,
    );
  });

  it('asks on a terminal before deleting', async () => {
    const hook = (
      await as(
        ana,
        'webhooks',
        'add',
        'shop',
        '--type',
        'slack',
        '--level',
        'info',
        '--value',
        'https://hooks.slack.com/services/T/B/x',
        '--json',
      )
    ).json<{ id: string }>();
    const no = await run(['--url', h.url, '--token', ana.token, 'webhooks', 'delete', hook.id], {
      stdinTTY: true,
      input: 'n\n',
    });
    expect(no.code).toBe(EXIT.OK);
    expect(no.stderr).toMatch(/Delete webhook .*\? \[y\/N\] cancelled/);
    const yes = await run(['--url', h.url, '--token', ana.token, 'webhooks', 'delete', hook.id], {
      stdinTTY: true,
      input: 'y\n',
    });
    expect(yes.stderr).toMatch(/deleted webhook/);
  });

  it('takes a webhook id by any unique prefix of 8 or more characters', async () => {
    const add = async (level: string) =>
      (
        await as(ana, 'webhooks', 'add', 'shop', '--type', 'discord', '--level', level, '--value', DISCORD, '--json')
      ).json<{ id: string }>().id;
    const a = await add('info');
    const b = await add('warning');
    // UUIDv7: two ids made a moment apart share their first 8 hex digits (the same ~65 s).
    const common = [...a].findIndex((ch, i) => ch !== b[i]);
    expect(common).toBeGreaterThanOrEqual(8);
    const ambiguous = await as(ana, 'webhooks', 'delete', a.slice(0, 8), '--yes');
    expect(ambiguous.code).toBe(EXIT.USAGE);
    expect(ambiguous.stderr).toMatch(/ambiguous: \d+ webhooks begin with it/);
    expect(ambiguous.stderr).toContain(a);
    expect(ambiguous.stderr).toContain(b);
    // Past its random digits, so that no webhook of the other tests (made in the same moment) shares it.
    const deleted = await as(ana, 'webhooks', 'delete', a.slice(0, Math.max(30, common + 1)), '--yes');
    expect(deleted.code, deleted.stderr).toBe(EXIT.OK);
    expect(deleted.stderr).toBe(`deleted webhook ${a}\n`);
    expect((await as(ana, 'webhooks', 'delete', 'ffffffff', '--yes')).code).toBe(EXIT.NOT_FOUND);
    await as(ana, 'webhooks', 'delete', b, '--yes');
  });

  it('refuses bad input with the right codes', async () => {
    expect(
      (await as(ana, 'webhooks', 'add', 'shop', '--type', 'pager', '--level', 'fatal', '--value', DISCORD)).code,
    ).toBe(EXIT.USAGE);
    expect((await as(ana, 'webhooks', 'add', 'shop', '--level', 'fatal', '--value', DISCORD)).code).toBe(EXIT.USAGE);
    const invalid = await as(
      ana,
      'webhooks',
      'add',
      'shop',
      '--type',
      'discord',
      '--level',
      'fatal',
      '--value',
      'http://169.254.169.254/x',
    );
    expect(invalid.code).toBe(EXIT.INVALID);
    expect((await as(ana, 'webhooks', 'delete', 'not-a-uuid', '--yes')).code).toBe(EXIT.INVALID);
  });
});

describe('tapline logs', () => {
  it('lists core logs, the API answer unchanged with --json', async () => {
    await ana.client.call(contract.createCoreLog, {
      params: { trafficSourceId: sourceId },
      body: { title: 'Order failed', description: 'db timeout', layer: 'Database', source: 'api' },
    });
    const json = await as(ana, 'logs', 'shop', '--json');
    const api = await (
      await h.fetch(`/core-log/${sourceId}`, { headers: { authorization: `Bearer ${ana.token}` } })
    ).json();
    expect(json.json()).toEqual(api);
    const table = await as(ana, 'logs', 'shop');
    expect(table.stdout).toMatch(/Database\s+api\s+Order failed: db timeout/);
  });
});

describe('tapline login', () => {
  it('stores a token (0600) that later commands use', async () => {
    await createUser(h.deps.db, h.deps.clock, {
      email: 'cleo@example.com',
      passwordHash: await hashPassword('s3cret-pass'),
    });
    const home = mkdtempSync(join(tmpdir(), 'tapline-login-'));
    try {
      const wrong = await run(
        ['--url', h.url, '--home', home, 'login', '--email', 'cleo@example.com', '--password-stdin'],
        { input: 'nope\n' },
      );
      expect(wrong.code).toBe(EXIT.AUTH);
      expect(wrong.stderr).toMatch(/wrong email or password/);
      const noTerminal = await run(['--url', h.url, '--home', home, 'login', '--email', 'cleo@example.com']);
      expect(noTerminal.code).toBe(EXIT.USAGE);

      const ok = await run(
        ['--url', h.url, '--home', home, 'login', '--email', 'cleo@example.com', '--password-stdin'],
        { input: 's3cret-pass\n' },
      );
      expect(ok.code, ok.stderr).toBe(EXIT.OK);
      expect(ok.stdout).toMatch(`logged in to ${h.url} as cleo@example.com`);
      expect(statSync(join(home, 'credentials')).mode & 0o777).toBe(0o600);
      expect(readCredentials(home)).toMatchObject({ url: h.url, email: 'cleo@example.com' });

      // No --url, no --token: both come from the stored login.
      const status = await run(['--home', home, 'status', '--json']);
      expect(status.json()).toMatchObject({ url: h.url, user: { email: 'cleo@example.com' } });
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('tapline webhooks test', () => {
  it('says a failed delivery once, on stdout, and exits 1', async () => {
    const local = await startHarness({ config: { allowPrivateWebhooks: true } });
    try {
      const user = await local.user();
      const cli = (...argv: string[]) => run(['--url', local.url, '--token', user.token, ...argv]);
      await cli('sources', 'add', 'shop', 'shop.example.com');
      // Port 9 (discard) on loopback: nothing listens, so the delivery is refused at once.
      const hook = (
        await cli(
          'webhooks',
          'add',
          'shop',
          '--type',
          'http',
          '--level',
          'fatal',
          '--value',
          'http://127.0.0.1:9/hook',
          '--json',
        )
      ).json<{ id: string }>();
      const failed = await cli('webhooks', 'test', hook.id.slice(0, 13));
      expect(failed.code).toBe(EXIT.UNEXPECTED);
      expect(failed.stdout).toMatch(/^not delivered: .+\n$/);
      expect(failed.stderr).toBe('');
    } finally {
      await local.close();
    }
  });
});
