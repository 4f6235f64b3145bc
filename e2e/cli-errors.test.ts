import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { composeBody } from '@tapline/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, type SpawnedDaemon, startDaemon, tempHome } from './support/binaries.js';

/**
 * What the built `tapline` says when something is wrong: one `tapline: …` line (and at most a
 * hint), an exit code from the README's table, never a stack, a zod dump or a raw errno
 * (issue 24, problems 16 and 19).
 */

const SLOW = { timeout: 120_000 };

async function serve(handler: RequestListener): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('--url pointing at a server that is not Tapline', SLOW, () => {
  const others: Server[] = [];
  afterAll(() => others.forEach((s) => s.close()));

  const kinds: [string, RequestListener][] = [
    [
      'JSON of its own',
      (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"hello":"world","items":[1,2]}'),
    ],
    [
      'an HTML page for every path',
      (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>My app</title>'),
    ],
    [
      'an HTML 404 for every path',
      (_req, res) => res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>Not Found</body></html>'),
    ],
  ];
  for (const [kind, handler] of kinds) {
    it(`one line and exit 3 for a server answering ${kind}, whatever the command`, async () => {
      const { server, url } = await serve(handler);
      others.push(server);
      const home = tempHome();
      try {
        for (const args of [
          ['status'],
          ['sources', 'list'],
          ['traffic', 'list', 'shop'],
          ['auth', 'status'],
          ['webhooks', 'list', 'shop'],
        ]) {
          const result = await cli(['--url', url, '--token', 'a-token', ...args], { home: home.path });
          expect([result.exitCode, result.stderr], `${kind}: ${args.join(' ')}`).toEqual([
            3,
            `tapline: ${url}: not a Tapline daemon`,
          ]);
        }
        const login = await cli(['--url', url, 'login', '--email', 'ana@example.com', '--password-stdin'], {
          home: home.path,
          input: 'secret',
        });
        expect([login.exitCode, login.stderr]).toEqual([3, `tapline: ${url}: not a Tapline daemon`]);
      } finally {
        home.remove();
      }
    });
  }
});

describe('error lines against a real daemon', SLOW, () => {
  const home = tempHome();
  let daemon: SpawnedDaemon;
  const tapline = (args: readonly string[], input?: string) =>
    cli(['--url', daemon.url, ...args], { home: home.path, ...(input !== undefined ? { input } : {}) });
  const ids: string[] = [];

  let sourceId = '';
  const record = (over: Record<string, unknown> = {}) => composeBody(sourceId, over);

  beforeAll(async () => {
    daemon = await startDaemon(home.path, ['--max-body', '64kb']);
    const added = await tapline(['sources', 'add', 'shop', 'shop.example.com', '--json']);
    sourceId = (JSON.parse(added.stdout) as { id: string }).id;
    const lines = [record(), record(), record({ status: 503, method: 'POST', requestBody: { sku: 'a1' } })];
    const composed = await tapline(['record', 'shop', '--ndjson'], lines.map((l) => JSON.stringify(l)).join('\n'));
    expect(composed.exitCode, composed.stderr).toBe(0);
    ids.push(
      ...composed.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { id: string }).id),
    );
  });
  afterAll(async () => {
    await daemon.stop();
    home.remove();
  });

  it("usage errors are `tapline: …` lines with the command's --help, never commander's `error:`", async () => {
    const cases: [string[], string][] = [
      [['--bogus'], "tapline: unknown option '--bogus'\n  see `tapline --help`"],
      [
        ['traffic', 'lst'],
        "tapline: unknown command 'lst' (did you mean one of list, ls?)\n  see `tapline traffic --help`",
      ],
      [['traffic', 'list'], "tapline: missing required argument 'source'\n  see `tapline traffic list --help`"],
      [
        ['traffic', 'list', 'shop', '--page', '-1'],
        'tapline: --page must be a whole number from 1 (got -1)\n  see `tapline traffic list --help`',
      ],
      [
        ['traffic', 'list', 'shop', '--limit', '5000'],
        'tapline: --limit must be a whole number from 1 to 1000 (got 5000)\n  see `tapline traffic list --help`',
      ],
      [
        ['traffic', 'list', 'shop', '--status', 'teapot'],
        'tapline: --status must be a status such as 404 or a class such as 5xx (got teapot)\n  see `tapline traffic list --help`',
      ],
    ];
    for (const [args, stderr] of cases) {
      const result = await tapline(args);
      expect([result.exitCode, result.stderr], args.join(' ')).toEqual([2, stderr]);
    }
  });

  it('`tapline ui` without a terminal names the program once', async () => {
    const result = await tapline(['ui', 'shop']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe(
      'tapline: ui needs a terminal\n  for pipes and scripts use `tapline traffic tail` or `tapline traffic list`',
    );
  });

  it('export to a directory that does not exist: one line, exit 2', async () => {
    const result = await tapline(['traffic', 'export', 'shop', '--har', '-o', '/nonexistent/x.har']);
    expect([result.exitCode, result.stderr]).toEqual([
      2,
      'tapline: cannot write /nonexistent/x.har: no such directory',
    ]);
    const dir = join(home.path, 'a-directory');
    mkdirSync(dir);
    const onDir = await tapline(['traffic', 'export', 'shop', '--har', '-o', dir]);
    expect([onDir.exitCode, onDir.stderr]).toEqual([2, `tapline: cannot write ${dir}: it is a directory`]);
  });

  it('an oversized record names the limit and the flag that sets it', async () => {
    const file = join(home.path, 'big.json');
    writeFileSync(file, JSON.stringify(record({ responseBody: { blob: 'x'.repeat(100_000) } })));
    const result = await tapline(['record', 'shop', '--file', file]);
    expect(result.exitCode).toBe(7);
    expect(result.stderr).toBe(
      'tapline: the daemon refused the input as too large: 98 KB of JSON, over its body limit\n' +
        "  taplined's --max-body sets how large one request may be (1mb unless set; a batch may be 16 MB)",
    );
  });

  it('status without a token exits 4, as any command refused for want of a token', async () => {
    const bare = tempHome();
    try {
      const result = await cli(['--url', daemon.url, 'status'], { home: bare.path });
      expect(result.exitCode).toBe(4);
      expect(result.stdout).toMatch(
        new RegExp(`^daemon {3}${daemon.url} {2}ok {2}v\\S+\\n(storage .*\\n)?token {4}none found$`),
      );
      expect(result.stderr).toBe(
        `tapline: no token found (looked at --token, TAPLINE_TOKEN, ${bare.path}/credentials and ${bare.path}/token)\n` +
          '  start `taplined` once on this machine, log in with `tapline login --email <you>`, or pass --token',
      );
    } finally {
      bare.remove();
    }
  });

  it('traffic diff exits 0 when the two are the same, 1 when they differ, 2 and up on errors (as diff(1))', async () => {
    const [a = '', b = '', c = ''] = ids;
    const same = await tapline(['traffic', 'diff', 'shop', a, b]);
    expect([same.exitCode, same.stderr]).toEqual([0, '']);
    expect(same.stdout).toContain('no differences (apart from id and time)');
    const differ = await tapline(['traffic', 'diff', 'shop', a, c]);
    expect([differ.exitCode, differ.stderr]).toEqual([1, '']);
    expect(differ.stdout).toMatch(/^~ status\s+200 -> 503$/m);
    expect((await tapline(['traffic', 'diff', 'shop', a, c, '--json'])).exitCode).toBe(1);
    const missing = await tapline(['traffic', 'diff', 'shop', a, '0190e0a0-0000-7000-8000-000000000000']);
    expect(missing.exitCode).toBe(5);
    const help = await tapline(['traffic', 'diff', '--help']);
    expect(help.stdout).toContain('Exit status: 0 when the two are the same, 1 when they differ, 2 or more on errors');
  });
});
