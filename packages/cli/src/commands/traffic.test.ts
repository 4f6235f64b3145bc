import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeBody, startHarness, type Harness, type TestUser } from '@tapline/testkit/daemon';
import { EXIT } from '../exit-codes.js';
import { run } from '@tapline/testkit/cli';

let h: Harness;
let ana: TestUser;
let sourceId: string;
const as = (user: TestUser, ...argv: string[]) => run(['--url', h.url, '--token', user.token, ...argv]);
const api = async (path: string, token = ana.token) =>
  (await h.fetch(path, { headers: { authorization: `Bearer ${token}` } })).json();

/** Six records over two domains, compose order = oldest first; no trafficSourceId: the CLI fills it. */
const records = [
  { domainUrl: 'https://shop.example.com', pathnameUrl: '/api/orders', method: 'GET', status: 200 },
  {
    domainUrl: 'https://shop.example.com',
    pathnameUrl: '/api/orders',
    method: 'POST',
    status: 201,
    requestBody: { sku: 'a1' },
  },
  { domainUrl: 'https://shop.example.com', pathnameUrl: '/api/cart', method: 'GET', status: 404 },
  { domainUrl: 'https://admin.example.com', pathnameUrl: '/api/orders', method: 'DELETE', status: 500 },
  { domainUrl: 'https://admin.example.com', pathnameUrl: '/login', method: 'POST', status: 503 },
  { domainUrl: 'https://shop.example.com', pathnameUrl: '/api/orders', method: 'PATCH', status: 200 },
].map((r) => {
  const { trafficSourceId: _, ...body } = composeBody('x', r);
  return body;
});

beforeAll(async () => {
  h = await startHarness();
  ana = await h.user();
  sourceId = (await as(ana, 'sources', 'add', 'shop', 'shop.example.com', '--json')).json<{ id: string }>().id;
  const ndjson = records.map((r) => JSON.stringify(r)).join('\n');
  const sent = await run(['--url', h.url, '--token', ana.token, 'record', 'shop'], { input: `${ndjson}\n` });
  expect(sent.code, sent.stderr).toBe(EXIT.OK);
  expect(sent.stdout.trim().split('\n')).toHaveLength(6);
});
afterAll(() => h.close());

type List = {
  data: { id: string; method: string; status: number; domain: string; pathname: string; level: string }[];
  meta: { total: number };
};
const list = async (...flags: string[]) => {
  const result = await as(ana, 'traffic', 'list', 'shop', '--json', ...flags);
  expect(result.code, result.stderr).toBe(EXIT.OK);
  return result.json<List>();
};

describe('tapline traffic list', () => {
  it('prints the API answer unchanged with --json', async () => {
    expect(await list()).toEqual(await api(`/http-traffic/${sourceId}`));
    expect((await list()).meta.total).toBe(6);
  });

  it('sends each filter to the API', async () => {
    expect((await list('--method', 'post')).data.map((t) => t.status).sort()).toEqual([201, 503]);
    expect((await list('--status', '5xx')).data.map((t) => t.status).sort()).toEqual([500, 503]);
    expect((await list('--status', '404')).meta.total).toBe(1);
    expect((await list('--level', 'warning')).data.map((t) => t.status)).toEqual([404]);
    expect((await list('--domain', 'admin.example.com')).meta.total).toBe(2);
    expect((await list('--domain', 'shop.example.com', '--path', '/api/orders')).meta.total).toBe(3);
    expect((await list('--path', '/login')).data.map((t) => t.method)).toEqual(['POST']);
    expect((await list('--since', '1h')).meta.total).toBe(6);
    expect((await list('--until', '2000-01-01')).meta.total).toBe(0);
    expect((await list('--since', '2000-01-01T00:00:00Z', '--status', '2xx')).meta.total).toBe(3);
    const filtered = await list('--status', '5xx', '--limit', '1');
    expect(filtered).toEqual(await api(`/http-traffic/${sourceId}?status=5xx&limit=1`));
  });

  it('streams every page with --all --ndjson, newest first', async () => {
    const all = await as(ana, 'traffic', 'list', 'shop', '--all', '--limit', '4', '--ndjson');
    const lines = all.lines<{ method: string }>();
    expect(lines.map((t) => t.method)).toEqual(records.map((r) => r.method).reverse());
  });

  it('gathers every page into one document with --json --all', async () => {
    const all = (await list('--all', '--limit', '4')) as List & { meta: { total: number; limit: number } };
    expect(all.data.map((t) => t.id)).toEqual((await list('--limit', '10')).data.map((t) => t.id));
    expect(all.meta).toEqual({ total: 6, page: 1, limit: 6 });
  });

  it('refuses unknown names and bad flags', async () => {
    const domain = await as(ana, 'traffic', 'list', 'shop', '--domain', 'nope.example.com');
    expect(domain.code).toBe(EXIT.NOT_FOUND);
    expect(domain.stderr).toMatch(/no traffic to a domain named "nope.example.com"/);
    const ambiguous = await as(ana, 'traffic', 'list', 'shop', '--path', '/api/orders');
    expect(ambiguous.code).toBe(EXIT.USAGE);
    expect(ambiguous.stderr).toMatch(/add --domain/);
    expect((await as(ana, 'traffic', 'list', 'shop', '--status', '7xx')).code).toBe(EXIT.USAGE);
    expect((await as(ana, 'traffic', 'list', 'shop', '--since', 'yesterday')).code).toBe(EXIT.USAGE);
    expect((await as(ana, 'traffic', 'list', 'nope')).code).toBe(EXIT.NOT_FOUND);
  });

  it('prints a table that fits the terminal, coloured only on a terminal', async () => {
    const piped = await as(ana, 'traffic', 'list', 'shop');
    const [header, first] = piped.stdout.split('\n');
    expect(header).toMatch(/^TIME\s+METHOD\s+STATUS\s+LEVEL\s+LATENCY\s+DOMAIN\+PATH\s+ID$/);
    expect(first).toContain('PATCH');
    expect(first).toContain('shop.example.com/api/orders');
    expect(piped.stdout).not.toContain('\u001b[');

    const narrow = await run(['--url', h.url, '--token', ana.token, 'traffic', 'list', 'shop'], {
      stdoutTTY: true,
      columns: 70,
      env: { TERM: 'xterm' },
    });
    const rows = narrow.stdout.trimEnd().split('\n');
    const visible = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, '');
    expect(rows.every((r) => visible(r).length <= 70)).toBe(true);
    expect(narrow.stdout).toContain('\u001b[');
    // A short id column stays, long enough to be used: `traffic show` takes it back.
    expect(visible(rows[0] ?? '')).toMatch(/ ID$/);
    const shortId =
      visible(rows[1] ?? '')
        .trim()
        .split(/\s+/)
        .pop() ?? '';
    expect(shortId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}/);
    const shown = await as(ana, 'traffic', 'show', 'shop', shortId, '--json');
    expect(shown.code, shown.stderr).toBe(EXIT.OK);
    expect(shown.json<{ id: string; method: string }>()).toMatchObject({ method: 'PATCH' });

    const noColor = await run(['--url', h.url, '--token', ana.token, 'traffic', 'list', 'shop'], {
      stdoutTTY: true,
      env: { NO_COLOR: '1' },
    });
    expect(noColor.stdout).not.toContain('\u001b[');
  });
});

describe('tapline traffic show', () => {
  it('shows a whole record, as JSON unchanged, and as a curl command', async () => {
    const [newest] = (await list()).data;
    const id = newest?.id ?? '';
    const json = await as(ana, 'traffic', 'show', 'shop', id, '--json');
    expect(json.json()).toEqual(await api(`/http-traffic/${sourceId}/${id}`));
    const text = await as(ana, 'traffic', 'show', sourceId, id);
    expect(text.stdout).toMatch(/^PATCH https:\/\/shop\.example\.com\/api\/orders\n200 {2}INFO/);
    expect(text.stdout).toContain('Response body\n  {\n    "ok": true\n  }');
    const curl = await as(ana, 'traffic', 'show', 'shop', id, '--curl');
    expect(curl.stdout).toBe("curl -X PATCH https://shop.example.com/api/orders \\\n  -H 'accept: application/json'\n");
    expect(curl.stderr).toBe('');
    expect((await as(ana, 'traffic', 'show', 'shop', sourceId)).code).toBe(EXIT.NOT_FOUND);
  });
});

describe('id prefixes', () => {
  it('take any unique prefix of 8 or more characters; an ambiguous one lists the candidates (exit 2)', async () => {
    const ids = (await list()).data.map((t) => t.id);
    // UUIDv7: entries made within about 65 s share their first 8 hex digits; take the largest such group.
    const groupOf = (id: string) => ids.filter((other) => other.startsWith(id.slice(0, 8)));
    const shared = ids.map(groupOf).sort((a, b) => b.length - a.length)[0] ?? [];
    expect(shared.length).toBeGreaterThan(1);
    const ambiguous = await as(ana, 'traffic', 'show', 'shop', (shared[0] ?? '').slice(0, 8));
    expect(ambiguous.code).toBe(EXIT.USAGE);
    expect(ambiguous.stderr).toMatch(new RegExp(`ambiguous: ${shared.length} traffic entries begin with it`));
    for (const id of shared) expect(ambiguous.stderr).toContain(id);

    const id = ids[2] ?? '';
    const unique = await as(ana, 'traffic', 'show', 'shop', id.slice(0, 23).toUpperCase(), '--json');
    expect(unique.code, unique.stderr).toBe(EXIT.OK);
    expect(unique.json<{ id: string }>().id).toBe(id);
    expect((await as(ana, 'traffic', 'show', 'shop', 'ffffffff')).code).toBe(EXIT.NOT_FOUND);
    const short = await as(ana, 'traffic', 'show', 'shop', id.slice(0, 7));
    expect(short.code).toBe(EXIT.INVALID);
    expect(short.stderr).toMatch(/first 8 or more hex digits/);
  });
});

describe('tapline traffic list --where and time flags', () => {
  it('filters with the filter language, refusing a bad expression with a caret', async () => {
    expect((await list('--where', 'status>=500 and method=DELETE')).data.map((t) => t.status)).toEqual([500]);
    const bad = await as(ana, 'traffic', 'list', 'shop', '--where', 'status>>5');
    expect(bad.code).toBe(EXIT.USAGE);
    expect(bad.stderr).toMatch(/--where: .* at column 8\n {2}status>>5\n {2} {7}\^/);
  });

  it('names the flags when --since is after --until', async () => {
    const result = await as(ana, 'traffic', 'list', 'shop', '--since', '1m', '--until', '1h');
    expect(result.code).toBe(EXIT.USAGE);
    expect(result.stderr).toMatch(/--since .* is after --until/);
    expect(result.stderr).not.toMatch(/startDate|endDate/);
  });
});

describe('tapline record', () => {
  it('checks every record before sending any, naming the line and the fields', async () => {
    const bad = [records[0], { ...records[1], status: 99, method: 'TRACE' }, records[2]]
      .map((r) => JSON.stringify(r))
      .join('\n');
    const result = await run(['--url', h.url, '--token', ana.token, 'record', 'shop'], { input: bad });
    expect(result.code).toBe(EXIT.INVALID);
    expect(result.stderr).toMatch(
      /invalid record on line 2: status must be an integer from 100 to 599; method must be one of/,
    );
    expect(result.stderr.trim().split('\n').length).toBeLessThanOrEqual(2);
    expect((await list()).meta.total).toBe(6);

    const notJson = await run(['--url', h.url, '--token', ana.token, 'record', 'shop'], { input: '{"a":1}\n{oops\n' });
    expect(notJson.code).toBe(EXIT.INVALID);
    expect(notJson.stderr).toMatch(/line 2 is not valid JSON/);

    const otherSource = await run(['--url', h.url, '--token', ana.token, 'record', 'shop'], {
      input: JSON.stringify(composeBody('0190a000-0000-7000-8000-000000000000')),
    });
    expect(otherSource.code).toBe(EXIT.INVALID);
    expect(otherSource.stderr).toMatch(/trafficSourceId: must be this source's id/);

    const fromTerminal = await run(['--url', h.url, '--token', ana.token, 'record', 'shop'], { stdinTTY: true });
    expect(fromTerminal.code).toBe(EXIT.USAGE);
  });
});

describe('access', () => {
  it("gives 6 for another user's source and 4 for a bad token", async () => {
    const bob = await h.user();
    const forbidden = await as(bob, 'traffic', 'list', sourceId);
    expect(forbidden.code).toBe(EXIT.FORBIDDEN);
    const badToken = await run(['--url', h.url, '--token', 'not-a-token', 'traffic', 'list', sourceId]);
    expect(badToken.code).toBe(EXIT.AUTH);
    expect(badToken.stderr).toMatch(/refused the token/);
  });
});

describe('smaller fixes (issue 12, item 5)', () => {
  const cli = (argv: string[], input?: string) =>
    run(['--url', h.url, '--token', ana.token, ...argv], input === undefined ? {} : { input });
  beforeAll(async () => {
    expect((await as(ana, 'sources', 'add', 'batch', 'shop.example.com')).code).toBe(EXIT.OK);
  });

  it('record: an empty array says "no records" (exit 7); --json prints one document', async () => {
    const empty = await cli(['record', 'batch'], '[]');
    expect(empty.code).toBe(EXIT.INVALID);
    expect(empty.stderr).toMatch(/no records/);
    const two = await cli(
      ['record', 'batch', '--json'],
      `${JSON.stringify(records[0])}\n${JSON.stringify(records[1])}\n`,
    );
    expect(two.code, two.stderr).toBe(EXIT.OK);
    expect(two.json<{ method: string }[]>().map((r) => r.method)).toEqual(['GET', 'POST']);
    const one = await cli(['record', 'batch', '--json'], JSON.stringify(records[2], null, 2));
    expect(one.json<{ status: number }>().status).toBe(404);
  });

  it('record: lists every issue of every invalid record', async () => {
    const bad = { domainUrl: 'nope', pathnameUrl: 'x', status: 9, method: 'TRACE', protocol: 'FTP', elapsedTime: -1 };
    const result = await cli(
      ['record', 'batch'],
      `${JSON.stringify(bad)}\n${JSON.stringify({ ...records[0], status: 700 })}\n`,
    );
    expect(result.code).toBe(EXIT.INVALID);
    for (const field of [
      'domainUrl',
      'pathnameUrl',
      'status',
      'method',
      'protocol',
      'elapsedTime',
      'requestHeaders',
      'queryParams',
      'responseHeaders',
    ]) {
      expect(result.stderr).toContain(field);
    }
    expect(result.stderr).not.toMatch(/and \d+ more/);
    expect(result.stderr).toMatch(/\n {2}line 2: status must be/);
    expect(result.stderr).toMatch(/2 invalid records; nothing was sent/);
  });

  it('show --curl warns on stderr about redacted values', async () => {
    const secret = {
      ...records[0],
      requestHeaders: { authorization: 'Bearer abc' },
      queryParams: { token: 'xyz', page: '2' },
      requestBody: { user: { password: 'p' } },
      method: 'POST',
    };
    const id = (await cli(['record', 'batch', '--json'], JSON.stringify(secret))).json<{ id: string }>().id;
    const curl = await cli(['traffic', 'show', 'batch', id, '--curl']);
    expect(curl.code).toBe(EXIT.OK);
    expect(curl.stderr).toMatch(/warning: .*header authorization, query token, body user\.password/);
  });

  it('tail --help shows its default once', async () => {
    const help = (await run(['traffic', 'tail', '--help'])).stdout;
    expect(help.match(/default/g)).toHaveLength(1);
    expect(help).toMatch(/-n, --lines <n>\s+how many past entries to print first \(0 for none\) \(default:\s+10\)/);
  });

  it('proxy --source with an unknown name exits 5', async () => {
    const result = await cli([
      'proxy',
      '--source',
      'nope',
      '--target',
      'http://127.0.0.1:9',
      '--listen',
      '127.0.0.1:0',
    ]);
    expect(result.code).toBe(EXIT.NOT_FOUND);
    expect(result.stderr).toMatch(/no traffic source named "nope"/);
  });
});

describe('tapline traffic diff', () => {
  it('shows what differs between two entries, --json for scripts, coloured only on a terminal', async () => {
    const [patch, , , , post] = (await list()).data;
    const argv = ['traffic', 'diff', 'shop', post?.id.slice(0, 13) ?? '', patch?.id ?? ''];
    const json = (await as(ana, ...argv, '--json')).json<{
      a: { id: string };
      differences: { path: string; kind: string; a: unknown; b: unknown }[];
    }>();
    expect(json.a.id).toBe(post?.id);
    expect(json.differences).toEqual(
      expect.arrayContaining([
        { path: 'method', segments: ['method'], kind: 'changed', a: 'POST', b: 'PATCH' },
        { path: 'status', segments: ['status'], kind: 'changed', a: 201, b: 200 },
        { path: 'request.body', segments: ['request', 'body'], kind: 'changed', a: { sku: 'a1' }, b: null },
      ]),
    );
    const text = await as(ana, ...argv);
    expect(text.code, text.stderr).toBe(EXIT.DIFFERENT);
    expect(text.stdout).toMatch(/^A \S+ .* POST 201 https:\/\/shop\.example\.com\/api\/orders\nB /);
    expect(text.stdout).toMatch(/\n~ status\s+201 -> 200\n/);
    expect(text.stdout).not.toContain('\u001b[');
    const tty = await run(['--url', h.url, '--token', ana.token, ...argv], { stdoutTTY: true, env: { TERM: 'xterm' } });
    expect(tty.stdout).toContain('\u001b[33m~ status');
    const same = await as(ana, 'traffic', 'diff', 'shop', patch?.id ?? '', patch?.id ?? '');
    expect(same.stdout).toMatch(/no differences/);
    expect(same.code).toBe(EXIT.OK);
  });
});
