import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeBody, startHarness, type Harness, type TestUser } from '@tapline/testkit/daemon';
import { run } from '@tapline/testkit/cli';
import { EXIT } from '../exit-codes.js';

let h: Harness;
let ana: TestUser;
const as = (argv: readonly string[], options: Parameters<typeof run>[1] = {}) =>
  run(['--url', h.url, '--token', ana.token, ...argv], options);
const SLUGS = ['blue-shirt', 'red-hat', 'green-sock', 'black-boot', 'white-tee'];

beforeAll(async () => {
  h = await startHarness({ routeReassignment: { start: false } });
  ana = await h.user();
  const sourceId = (await as(['sources', 'add', 'shop', 'shop.example.com', '--json'])).json<{ id: string }>().id;
  const records = [...SLUGS, 'blue-shirt', 'blue-shirt'].map((slug) =>
    composeBody(sourceId, { pathnameUrl: `/products/${slug}` }),
  );
  const sent = await h.fetch(`/http-traffic-record/${sourceId}/batch`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ana.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(records),
  });
  expect(sent.status).toBe(201);
});
afterAll(() => h.close());

type Route = { template: string; origin: string; entries: number };
const routes = async () =>
  (await as(['routes', 'list', 'shop', '--json']))
    .json<{ data: Route[] }>()
    .data.map((r) => [r.template, r.origin, r.entries])
    .sort();

describe('tapline routes', () => {
  it('suggests the sibling constants with their evidence, adds the rule, and lists its entries once moved', async () => {
    const suggested = await as(['routes', 'suggest', 'shop'], { stdoutTTY: true, columns: 120 });
    expect(suggested.code, suggested.stderr).toBe(EXIT.OK);
    expect(suggested.stdout).toContain('/products/{slug}');
    expect(suggested.stdout).toContain('5 distinct values under /products/, each seen 1–3 times (blue-shirt,');
    expect(suggested.stderr).toContain("tapline routes add shop '/products/{slug}'");
    expect(
      (await as(['routes', 'suggest', 'shop', '--json']))
        .json<{ data: { template: string }[] }>()
        .data.map((s) => s.template),
    ).toEqual(['/products/{slug}']);

    const added = await as(['routes', 'add', 'shop', '/products/:slug']);
    expect(added.code, added.stderr).toBe(EXIT.OK);
    expect(added.stdout).toContain('added rule /products/{slug}');
    await h.routeReassignment.runNow();
    expect(await routes()).toContainEqual(['/products/{slug}', 'rule', 7]);
    const table = await as(['routes', 'list', 'shop'], { stdoutTTY: true, columns: 80 });
    expect(table.stdout.replace(/\u001b\[[0-9;]*m/g, '')).toMatch(/^\s+7\s+rule\s+\/products\/\{slug\}$/m);
    expect(
      (await as(['routes', 'rules', 'shop', '--json'])).json<{ data: { template: string; entries: number }[] }>().data,
    ).toMatchObject([{ template: '/products/{slug}', entries: 7 }]);
    expect((await as(['routes', 'suggest', 'shop'])).stdout).toContain('no suggestion');

    const removed = await as(['routes', 'remove', 'shop', '/products/{slug}']);
    expect(removed.code, removed.stderr).toBe(EXIT.OK);
    await h.routeReassignment.runNow();
    expect(await routes()).toContainEqual(['/products/blue-shirt', 'inferred', 3]);
    expect(await routes()).toContainEqual(['/products/{slug}', 'inferred', 0]);
  });

  it('exits 2 for a malformed template, 7 naming the rule of the same paths, 5 for removing no rule', async () => {
    for (const [template, words] of [
      ['products/{slug}', 'begins with /'],
      ['/products/{slug', 'unbalanced'],
      ['/a/{id}/{id}', 'twice'],
    ] as const) {
      const result = await as(['routes', 'add', 'shop', template]);
      expect(result.code, template).toBe(EXIT.USAGE);
      expect(result.stderr, template).toContain(words);
    }
    expect((await as(['routes', 'add', 'shop', '/orders/{order}'])).code).toBe(EXIT.OK);
    const conflict = await as(['routes', 'add', 'shop', '/orders/<id>']);
    expect(conflict.code).toBe(EXIT.INVALID);
    expect(conflict.stderr).toContain('/orders/{id} matches the same paths as the rule /orders/{order}');
    const missing = await as(['routes', 'remove', 'shop', '/nothing/{here}']);
    expect(missing.code).toBe(EXIT.NOT_FOUND);
    expect(missing.stderr).toContain('shop has no rule /nothing/{here}');
  });
});
