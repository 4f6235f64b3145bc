import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeBody, startHarness, type Harness, type TestUser } from '@tapline/testkit/daemon';
import { run } from '@tapline/testkit/cli';
import { EXIT } from '../exit-codes.js';
import { sparkline } from './stats.js';

let h: Harness;
let ana: TestUser;
const as = (argv: readonly string[], options: Parameters<typeof run>[1] = {}) =>
  run(['--url', h.url, '--token', ana.token, ...argv], options);

beforeAll(async () => {
  h = await startHarness();
  ana = await h.user();
  const sourceId = (await as(['sources', 'add', 'shop', 'shop.example.com', '--json'])).json<{ id: string }>().id;
  const now = Date.now();
  const records = [
    ...[10, 12, 14, 16, 400].map((elapsedTime, i) => ({
      pathnameUrl: `/users/${i + 40}`,
      elapsedTime,
      status: i === 4 ? 503 : 200,
      startedAt: new Date(now - 5 * 60_000).toISOString(),
    })),
    ...[30, 30].map((elapsedTime) => ({
      pathnameUrl: '/users/1',
      elapsedTime,
      startedAt: new Date(now - 65 * 60_000).toISOString(),
    })),
    { pathnameUrl: '/products/blue-shirt', elapsedTime: 3, startedAt: new Date(now - 60_000).toISOString() },
  ].map((r) => composeBody(sourceId, r));
  const sent = await h.fetch(`/http-traffic-record/${sourceId}/batch`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ana.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(records),
  });
  expect(sent.status).toBe(201);
});
afterAll(() => h.close());

describe('tapline stats', () => {
  it('prints a table that fits 80 and 160 columns, with the templates, counts, error rates and sparklines', async () => {
    for (const columns of [80, 160]) {
      const result = await as(['stats', 'shop', '--by', 'route'], { stdoutTTY: true, columns });
      expect(result.code, result.stderr).toBe(EXIT.OK);
      const lines = result.stdout
        .replace(/\u001b\[[0-9;]*m/g, '')
        .trimEnd()
        .split('\n');
      for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(columns);
      expect(lines[0]).toMatch(/COUNT.*ERRORS.*P95/);
      expect(lines[1]).toMatch(/^\s*5\s+20%\s.*\/users\/\{id\}/);
      expect(result.stdout).toContain('/products/blue-shirt');
      if (columns === 160) expect(lines[0]).toContain('REQUESTS');
    }
  });

  it('gives the API answer with --json and one group a line with --ndjson', async () => {
    const json = await as(['stats', 'shop', '--json', '--by', 'route']);
    expect(json.json<{ data: { route: string; count: number }[] }>().data.map((g) => [g.route, g.count])).toEqual([
      ['/users/{id}', 5],
      ['/products/blue-shirt', 1],
    ]);
    const ndjson = await as(['stats', 'shop', '--ndjson', '--by', 'route']);
    expect(
      ndjson.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { route: string }).route),
    ).toEqual(['/users/{id}', '/products/blue-shirt']);
  });

  it('marks changes with arrows under NO_COLOR when comparing', async () => {
    const result = await as(['stats', 'shop', '--by', 'route', '--compare', 'previous'], {
      stdoutTTY: true,
      columns: 160,
      env: { NO_COLOR: '1' },
    });
    expect(result.code, result.stderr).toBe(EXIT.OK);
    // 5 requests now against 2 the hour before: up 150 %.
    expect(result.stdout).toMatch(/5\s+↑150%/);
    expect(result.stdout).not.toContain('\u001b[');
  });

  it('exits 2 naming the parameter the daemon refused', async () => {
    const result = await as(['stats', 'shop', '--where', 'latency>5']);
    expect(result.code).toBe(EXIT.USAGE);
    expect(result.stderr).toContain('where');
    expect((await as(['stats', 'shop', '--by', 'path'])).code).toBe(EXIT.USAGE);
  });

  it('lists route templates with their origin and entries', async () => {
    const result = await as(['routes', 'list', 'shop', '--json']);
    expect(
      result
        .json<{ data: { template: string; origin: string; entries: number }[] }>()
        .data.map((r) => [r.template, r.origin, r.entries])
        .sort(),
    ).toEqual([
      ['/products/blue-shirt', 'inferred', 1],
      ['/users/{id}', 'inferred', 7],
    ]);
  });

  it('draws sparklines from the lowest to the highest value', () => {
    expect(sparkline([0, 1, 2, null, 8])).toBe('▁▁▂▁█');
  });
});
