import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type TestUser } from '@tapline/testkit/daemon';
import { EXIT } from '../exit-codes.js';
import { run } from '@tapline/testkit/cli';

let h: Harness;
let ana: TestUser;
const as = (user: TestUser, ...argv: string[]) => run(['--url', h.url, '--token', user.token, ...argv]);

beforeAll(async () => {
  h = await startHarness();
  ana = await h.user();
});
afterAll(() => h.close());

describe('tapline sources', () => {
  it('adds, lists (the API answer unchanged), renames and removes a source', async () => {
    const added = await as(ana, 'sources', 'add', 'shop', 'Shop.Example.com', '--json');
    expect(added.code).toBe(EXIT.OK);
    const source = added.json<{ id: string; trafficDomain: string }>();
    expect(source.trafficDomain).toBe('shop.example.com');

    const listed = await as(ana, 'sources', 'list', '--json');
    const api = await (await h.fetch('/traffic-source', { headers: { authorization: `Bearer ${ana.token}` } })).json();
    expect(listed.json()).toEqual(api);

    const table = await as(ana, 'sources', 'list');
    expect(table.stdout.split('\n')[0]).toMatch(/^NAME\s+DOMAIN\s+ID\s+CREATED$/);
    expect(table.stdout).toContain(`shop  shop.example.com  ${source.id}`);

    expect((await as(ana, 'sources', 'rename', 'shop', 'shop-eu')).code).toBe(EXIT.OK);
    expect((await as(ana, 'sources', 'list', '--ndjson')).lines<{ name: string }>().map((s) => s.name)).toEqual([
      'shop-eu',
    ]);

    const refused = await as(ana, 'sources', 'remove', 'shop-eu');
    expect(refused.code).toBe(EXIT.USAGE);
    expect(refused.stderr).toMatch(/refusing without --yes/);

    expect((await as(ana, 'sources', 'remove', source.id, '--yes')).code).toBe(EXIT.OK);
    expect((await as(ana, 'sources', 'list', '--json')).json()).toMatchObject({ data: [], meta: { total: 0 } });
  });

  it("maps the daemon's refusals to exit codes", async () => {
    await as(ana, 'sources', 'add', 'dup', 'dup.example.com');
    const conflict = await as(ana, 'sources', 'add', 'dup', 'dup.example.com');
    expect(conflict.code).toBe(EXIT.INVALID);
    expect(conflict.stderr).toMatch(/already exists/);

    const bad = await as(ana, 'sources', 'add', 'x', 'https://nope/');
    expect(bad.code).toBe(EXIT.INVALID);
    expect(bad.stderr).toMatch(/trafficDomain/);

    const unknown = await as(ana, 'sources', 'rename', 'no-such-source', 'y');
    expect(unknown.code).toBe(EXIT.NOT_FOUND);
    expect(unknown.stderr).toMatch(/no traffic source named "no-such-source"/);
  });

  it('pages: --limit, --page and --all', async () => {
    const bob = await h.user();
    for (let i = 0; i < 5; i++) await as(bob, 'sources', 'add', `s${i}`, `s${i}.example.com`);
    const page2 = (await as(bob, 'sources', 'list', '--limit', '2', '--page', '2', '--json')).json<{
      data: unknown[];
      meta: unknown;
    }>();
    expect(page2.meta).toEqual({ total: 5, page: 2, limit: 2 });
    expect(page2.data).toHaveLength(2);
    const all = await as(bob, 'sources', 'list', '--limit', '2', '--all', '--ndjson');
    expect(
      all
        .lines<{ name: string }>()
        .map((s) => s.name)
        .sort(),
    ).toEqual(['s0', 's1', 's2', 's3', 's4']);
    const table = await as(bob, 'sources', 'list', '--limit', '2');
    expect(table.stderr).toMatch(/1-2 of 5 traffic sources; --page 2 for more/);
    expect((await as(bob, 'sources', 'list', '--limit', '0')).code).toBe(EXIT.USAGE);
  });
});
