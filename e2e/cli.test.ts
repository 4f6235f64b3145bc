import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import express from 'express';
import type { Server } from 'node:http';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, cli, startDaemon, TAPLINE, tempHome, type SpawnedDaemon } from './support/binaries.js';

/**
 * The built `tapline` against the built `taplined`, as a new user tries it: the CLI finds the
 * daemon's token in the shared home by itself. Steps share state and run in order.
 */

let home: ReturnType<typeof tempHome>;
let daemon: SpawnedDaemon;
let replay: {
  server: Server;
  url: string;
  seen: { method: string; url: string; headers: Record<string, unknown>; body: string }[];
};
let sourceId = '';

const tapline = (args: readonly string[], input?: string) =>
  cli(['--url', daemon.url, ...args], { home: home.path, ...(input !== undefined ? { input } : {}) });
const api = async (path: string, token = daemon.token) =>
  (await fetch(`${daemon.url}${path}`, { headers: { authorization: `Bearer ${token}` } })).json();

beforeAll(async () => {
  home = tempHome();
  daemon = await startDaemon(home.path, ['--allow-private-webhooks']);
  // The replay target: records each request it gets, so a `--curl` replay can be checked.
  const app = express();
  const seen: typeof replay.seen = [];
  app.use(express.text({ type: () => true }));
  app.all('/{*rest}', (req, res) => {
    seen.push({
      method: req.method,
      url: req.originalUrl,
      headers: req.headers,
      body: typeof req.body === 'string' ? req.body : '',
    });
    res.json({ replayed: true });
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  replay = { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
});

afterAll(async () => {
  replay?.server.close();
  await daemon?.stop();
  home?.remove();
});

const record = (over: Record<string, unknown>) => ({
  domainUrl: 'https://shop.example.com',
  pathnameUrl: '/api/orders',
  status: 200,
  protocol: 'HTTPS',
  method: 'GET',
  elapsedTime: 12,
  requestHeaders: { accept: 'application/json' },
  queryParams: {},
  responseHeaders: { 'content-type': 'application/json' },
  responseBody: { ok: true },
  ...over,
});

// Each step spawns the CLI many times; on a busy machine that takes longer than the default.
const SLOW = { timeout: 180_000 };

describe('tapline against taplined', SLOW, () => {
  it('needs no set-up: status finds the daemon token in the shared home', async () => {
    const status = await tapline(['status']);
    expect(status.exitCode, status.stderr).toBe(0);
    expect(status.stdout).toContain('local@localhost');
    expect(status.stdout).toContain(join(home.path, 'token'));
  });

  it('creates a source and composes records from an NDJSON file', async () => {
    const added = await tapline(['sources', 'add', 'shop', 'shop.example.com', '--json']);
    expect(added.exitCode, added.stderr).toBe(0);
    sourceId = (JSON.parse(added.stdout) as { id: string }).id;

    const lines = [
      record({}),
      record({ method: 'POST', status: 201, requestBody: { sku: 'a1' } }),
      record({ pathnameUrl: '/api/cart', status: 404 }),
      record({ domainUrl: 'https://admin.example.com', method: 'DELETE', status: 500 }),
      record({
        domainUrl: replay.url,
        pathnameUrl: '/replay/it',
        protocol: 'HTTP',
        method: 'PUT',
        status: 503,
        requestHeaders: {
          'content-type': 'application/json',
          'x-trace': 'it\'s "quoted" $HOME `x`',
          authorization: 'Bearer secret',
          connection: 'keep-alive',
        },
        queryParams: { q: 'a b&c', tag: ['x', 'y'] },
        requestBody: { note: "it's $(whoami)" },
      }),
    ];
    const file = join(home.path, 'records.ndjson');
    writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
    const composed = await tapline(['record', 'shop', '--file', file]);
    expect(composed.exitCode, composed.stderr).toBe(0);
    expect(composed.stdout.trim().split('\n')).toHaveLength(5);
  });

  it('lists with each filter; --json is the API answer, --ndjson its entries', async () => {
    const cases: [string[], string][] = [
      [[], ''],
      [['--method', 'post'], 'method=POST'],
      [['--status', '5xx'], 'status=5xx'],
      [['--status', '404'], 'status=404'],
      [['--level', 'fatal'], 'level=FATAL'],
      [['--limit', '2', '--page', '2'], 'limit=2&page=2'],
    ];
    for (const [flags, query] of cases) {
      const json = await tapline(['traffic', 'list', 'shop', '--json', ...flags]);
      expect(json.exitCode, json.stderr).toBe(0);
      const expected = (await api(`/http-traffic/${sourceId}?${query}`)) as { data: unknown[] };
      expect(JSON.parse(json.stdout), flags.join(' ')).toEqual(expected);
      const ndjson = await tapline(['traffic', 'list', 'shop', '--ndjson', ...flags]);
      expect(
        ndjson.stdout
          .split('\n')
          .filter(Boolean)
          .map((l): unknown => JSON.parse(l)),
      ).toEqual(expected.data);
    }
    const byName = async (flags: string[]) =>
      JSON.parse((await tapline(['traffic', 'list', 'shop', '--json', ...flags])).stdout) as {
        data: { status: number }[];
        meta: { total: number };
      };
    expect((await byName(['--domain', 'admin.example.com'])).data.map((t) => t.status)).toEqual([500]);
    expect((await byName(['--domain', 'shop.example.com', '--path', '/api/cart'])).data.map((t) => t.status)).toEqual([
      404,
    ]);
    expect((await byName(['--since', '10m'])).meta.total).toBe(5);
    expect((await byName(['--until', '2001-01-01T00:00:00Z'])).meta.total).toBe(0);

    const all = await tapline(['traffic', 'list', 'shop', '--all', '--limit', '2', '--ndjson']);
    expect(all.stdout.trim().split('\n')).toHaveLength(5);

    const table = await tapline(['traffic', 'list', 'shop']);
    expect(table.stdout.split('\n')[0]).toMatch(/^TIME\s+METHOD\s+STATUS\s+LEVEL\s+LATENCY\s+DOMAIN\+PATH/);
    expect(table.stdout).not.toContain('\u001b[');
    expect(table.stdout).toContain(`${replay.url.replace('http://', '')}/replay/it`);
  });

  it('replays a request with `traffic show --curl`', async () => {
    const [entry] = (
      JSON.parse((await tapline(['traffic', 'list', 'shop', '--json', '--method', 'PUT'])).stdout) as {
        data: { id: string }[];
      }
    ).data;
    const curl = await tapline(['traffic', 'show', 'shop', entry?.id ?? '', '--curl']);
    expect(curl.exitCode, curl.stderr).toBe(0);
    const ran = await execa('bash', ['-c', `${curl.stdout} --silent --show-error`], { reject: false });
    expect(ran.exitCode, ran.stderr).toBe(0);
    expect(ran.stdout).toBe('{"replayed":true}');
    const [got] = replay.seen;
    expect(got?.method).toBe('PUT');
    expect(got?.url).toBe('/replay/it?q=a+b%26c&tag=x&tag=y');
    expect(got?.headers['x-trace']).toBe('it\'s "quoted" $HOME `x`');
    expect(got?.headers['content-type']).toBe('application/json');
    expect(got?.headers.authorization).toBeUndefined();
    expect(JSON.parse(got?.body ?? '')).toEqual({ note: "it's $(whoami)" });

    const shown = await tapline(['traffic', 'show', 'shop', entry?.id ?? '']);
    expect(shown.stdout).toContain(`PUT ${replay.url}/replay/it?q=a+b%26c&tag=x&tag=y`);
  });

  it('replays a request with `traffic replay`, refusing redacted values until given', async () => {
    const [entry] = (
      JSON.parse((await tapline(['traffic', 'list', 'shop', '--json', '--method', 'PUT'])).stdout) as {
        data: { id: string }[];
      }
    ).data;
    const short = entry?.id.slice(0, 13) ?? '';
    replay.seen.length = 0;
    const refused = await tapline(['traffic', 'replay', 'shop', short]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain("header authorization: --set-header 'authorization: <value>'");
    expect(replay.seen).toEqual([]);
    const sent = await tapline([
      'traffic',
      'replay',
      'shop',
      short,
      '--set-header',
      'authorization: Bearer dev',
      '--json',
    ]);
    expect(sent.exitCode, sent.stderr).toBe(0);
    expect(JSON.parse(sent.stdout)).toMatchObject({
      request: { method: 'PUT' },
      response: { status: 200, body: { replayed: true } },
      recorded: { id: entry?.id, status: 503 },
    });
    const [got] = replay.seen;
    expect(got).toMatchObject({ method: 'PUT', url: '/replay/it?q=a+b%26c&tag=x&tag=y' });
    expect(got?.headers).toMatchObject({ authorization: 'Bearer dev', 'x-trace': 'it\'s "quoted" $HOME `x`' });
  });

  it('diffs two entries given by short ids', async () => {
    const entries = (
      JSON.parse((await tapline(['traffic', 'list', 'shop', '--json'])).stdout) as {
        data: { id: string; method: string }[];
      }
    ).data;
    const put = entries.find((e) => e.method === 'PUT')?.id ?? '';
    const del = entries.find((e) => e.method === 'DELETE')?.id ?? '';
    const diff = await tapline(['traffic', 'diff', 'shop', del.slice(0, 13), put.slice(0, 13)]);
    // 1: they differ, as diff(1) says it.
    expect(diff.exitCode, diff.stderr).toBe(1);
    expect(diff.stdout).toMatch(/^~ method\s+"DELETE" -> "PUT"$/m);
    expect(diff.stdout).toMatch(/^\+ request\.query\.tag\s+\["x","y"\]$/m);
  });

  it('completes source names in bash, asking the daemon', async () => {
    const script = (await tapline(['completion', 'bash'])).stdout;
    const bin = join(home.path, 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(
      join(bin, 'tapline'),
      `#!/bin/sh\nexec node ${JSON.stringify(TAPLINE)} --home ${JSON.stringify(home.path)} "$@"\n`,
      { mode: 0o755 },
    );
    const complete = async (line: string) => {
      const words = line.split(' ');
      const program = `${script}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _tapline; echo "\${COMPREPLY[@]}"`;
      return (
        await execa('bash', ['-c', program], { env: { PATH: `${bin}:${process.env.PATH ?? ''}` } })
      ).stdout.trim();
    };
    expect(await complete(`tapline --url ${daemon.url} traffic list sh`)).toBe('shop');
    expect(await complete(`tapline --url ${daemon.url} proxy --source `)).toBe('shop');
  });

  it('adds, lists and deletes webhooks', async () => {
    const added = await tapline([
      'webhooks',
      'add',
      'shop',
      '--type',
      'http',
      '--level',
      'fatal',
      '--value',
      `${replay.url}/hook`,
      '--json',
    ]);
    expect(added.exitCode, added.stderr).toBe(0);
    const hook = JSON.parse(added.stdout) as { id: string; secret: string };
    expect(hook.secret).toMatch(/^[0-9a-f]{64}$/);
    const listed = await tapline(['webhooks', 'list', 'shop', '--json']);
    expect(JSON.parse(listed.stdout)).toEqual(await api(`/webhooks/${sourceId}`));
    expect((await tapline(['webhooks', 'list', 'shop'])).stdout).toContain(`${replay.url}/hook`);
    expect((await tapline(['webhooks', 'delete', hook.id])).exitCode).toBe(2);
    expect((await tapline(['webhooks', 'delete', hook.id, '--yes'])).exitCode).toBe(0);
    expect(
      (JSON.parse((await tapline(['webhooks', 'list', 'shop', '--json'])).stdout) as { data: unknown[] }).data,
    ).toEqual([]);
  });

  it('has an example in every --help', async () => {
    const paths = [
      [],
      ['status'],
      ['login'],
      ['sources'],
      ['sources', 'list'],
      ['sources', 'add'],
      ['sources', 'rename'],
      ['sources', 'remove'],
      ['traffic', 'list'],
      ['traffic', 'show'],
      ['traffic', 'replay'],
      ['traffic', 'diff'],
      ['logs'],
      ['webhooks', 'list'],
      ['webhooks', 'add'],
      ['webhooks', 'delete'],
      ['record'],
      ['completion'],
    ];
    for (const path of paths) {
      const help = await cli([...path, '--help']);
      expect(help.exitCode, path.join(' ')).toBe(0);
      expect(help.stdout, path.join(' ')).toMatch(/Example:\n {2}\$ .*tapline /);
    }
  });
});

describe('exit codes, provoked for real', SLOW, () => {
  it('2: usage', async () => {
    const result = await tapline(['traffic', 'list']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/missing required argument 'source'/);
    expect((await tapline(['sources', 'remove', 'shop'])).exitCode).toBe(2);
  });

  it('3: the daemon is unreachable, and the message says where and what to do', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as AddressInfo;
        probe.close(() => resolve(free));
      });
    });
    const result = await cli(['--url', `http://127.0.0.1:${port}`, 'traffic', 'list', 'shop'], { home: home.path });
    expect(result.exitCode).toBe(3);
    expect(result.stderr).toMatch(
      new RegExp(`cannot reach the Tapline daemon at http://127.0.0.1:${port} \\(ECONNREFUSED\\)\n.*taplined`),
    );
    expect(result.stderr).not.toMatch(/\bat .*\.js:\d+/);
  });

  it('4: a bad token', async () => {
    const result = await tapline(['--token', 'not-a-token', 'sources', 'list']);
    expect(result.exitCode).toBe(4);
    expect(result.stderr).toMatch(/refused the token[^\n]*\n.*tapline login/);
  });

  it('5: an unknown source', async () => {
    const result = await tapline(['traffic', 'list', 'no-such-shop']);
    expect(result.exitCode).toBe(5);
    expect(result.stderr).toMatch(/no traffic source named "no-such-shop"/);
  });

  it("6: another user's source", async () => {
    await admin(home.path, ['user', 'add', 'bob@example.com']);
    const bob = await admin(home.path, ['token', 'create', 'bob@example.com']);
    const result = await tapline(['--token', bob, 'traffic', 'list', sourceId]);
    expect(result.exitCode).toBe(6);
    expect(result.stderr).toMatch(/forbidden/);
  });

  it('7: bad input, checked before sending and by the daemon', async () => {
    const local = await tapline(
      ['record', 'shop'],
      `${JSON.stringify(record({}))}\n${JSON.stringify(record({ status: 'ok', pathnameUrl: 'api' }))}\n`,
    );
    expect(local.exitCode).toBe(7);
    expect(local.stderr).toMatch(/invalid record on line 2: pathnameUrl must begin with \/; status must be/);
    expect(local.stderr).toMatch(/nothing was sent/);
    const daemonSide = await tapline(['sources', 'add', 'bad', 'not a domain']);
    expect(daemonSide.exitCode).toBe(7);
    expect(daemonSide.stderr).toMatch(/trafficDomain/);
  });
});

describe('a daemon on another home and port', SLOW, () => {
  it('writes where it listens to <home>/daemon.json (0600), which the CLI follows; a clean stop removes it', async () => {
    const h2 = tempHome();
    try {
      const other = await startDaemon(h2.path);
      const file = join(h2.path, 'daemon.json');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ url: other.url, pid: other.process.pid });
      const status = await cli(['status'], { home: h2.path });
      expect(status.exitCode, status.stderr).toBe(0);
      expect(status.stdout).toContain(`daemon   ${other.url}  ok`);
      expect(status.stdout).toContain('local@localhost');
      expect(await other.stop()).toBe(0);
      expect(existsSync(file)).toBe(false);
    } finally {
      h2.remove();
    }
  });

  it('a daemon killed without a clean stop leaves a stale file: the CLI names it (exit 3)', async () => {
    const h3 = tempHome();
    try {
      const other = await startDaemon(h3.path);
      await other.kill();
      const status = await cli(['status'], { home: h3.path });
      expect(status.exitCode).toBe(3);
      expect(status.stderr).toContain(`the daemon recorded in ${join(h3.path, 'daemon.json')}`);
    } finally {
      h3.remove();
    }
  });
});
