import { until } from '@tapline/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, startDaemon, tempHome, type SpawnedDaemon } from './support/binaries.js';

/**
 * Issue 26's route rules with the built binaries: traffic to sibling slugs is offered as a rule by
 * `tapline routes suggest`, accepted with `routes add`, moved by the daemon's background job, and
 * `tapline stats` then shows the rule's template with the exact count and percentiles.
 */

let home: ReturnType<typeof tempHome>;
let daemon: SpawnedDaemon;
const tapline = (args: readonly string[]) => cli(['--url', daemon.url, ...args], { home: home.path });
const SLUGS = ['blue-shirt', 'red-hat', 'green-sock', 'black-boot', 'white-tee', 'grey-cap'];
/** Latencies by request, known: p50 of the twelve is the value at index floor(0.5 × 11) = 5 of them sorted. */
const LATENCIES = [12, 15, 18, 21, 24, 27, 30, 33, 36, 39, 120, 480];
const SLOW = { timeout: 120_000 };

beforeAll(async () => {
  home = tempHome();
  daemon = await startDaemon(home.path);
  const added = await tapline(['sources', 'add', 'shop', 'shop.example.com', '--json']);
  const sourceId = (JSON.parse(added.stdout) as { id: string }).id;
  const records = LATENCIES.map((elapsedTime, i) => ({
    domainUrl: 'https://shop.example.com',
    pathnameUrl: `/products/${SLUGS[i % SLUGS.length] ?? ''}`,
    status: i === 11 ? 503 : 200,
    protocol: 'HTTPS',
    method: 'GET',
    elapsedTime,
    requestHeaders: {},
    queryParams: {},
    responseHeaders: {},
    requestBody: null,
    responseBody: null,
    trafficSourceId: sourceId,
  }));
  const sent = await fetch(`${daemon.url}/http-traffic-record/${sourceId}/batch`, {
    method: 'POST',
    headers: { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(records),
  });
  expect(sent.status).toBe(201);
}, SLOW.timeout);

afterAll(async () => {
  await daemon?.stop();
  home?.remove();
});

type Route = { template: string; origin: string; entries: number };

describe('tapline routes with the built binaries', () => {
  it(
    'suggests the slugs as a rule, adds it, moves the stored entries, and stats shows the template with exact numbers',
    SLOW,
    async () => {
      const suggested = await tapline(['routes', 'suggest', 'shop']);
      expect(suggested.exitCode, suggested.stderr).toBe(0);
      expect(suggested.stdout).toMatch(
        /\/products\/\{slug\}\s+6 distinct values under \/products\/, each seen 2 times/,
      );
      expect(suggested.stderr).toContain("tapline routes add shop '/products/{slug}'");

      const added = await tapline(['routes', 'add', 'shop', '/products/{slug}']);
      expect(added.exitCode, added.stderr).toBe(0);
      const routes = async () =>
        (JSON.parse((await tapline(['routes', 'list', 'shop', '--json'])).stdout) as { data: Route[] }).data;
      await until(
        async () => (await routes()).some((r) => r.template === '/products/{slug}' && r.entries === LATENCIES.length),
        'the stored entries to move to the rule',
        20_000,
      );
      expect((await routes()).find((r) => r.template === '/products/{slug}')?.origin).toBe('rule');
      const table = await tapline(['routes', 'list', 'shop']);
      expect(table.stdout).toMatch(/12\s+rule\s+\/products\/\{slug\}/);

      const stats = await tapline(['stats', 'shop', '--by', 'route', '--json']);
      expect(stats.exitCode, stats.stderr).toBe(0);
      const groups = (
        JSON.parse(stats.stdout) as {
          data: { route: string; count: number; status5xx: number; p50: number; max: number }[];
        }
      ).data;
      expect(groups.map((g) => g.route)).toEqual(['/products/{slug}']);
      const [group] = groups;
      expect(group).toMatchObject({ count: 12, status5xx: 1, max: 480 });
      expect(Math.abs((group?.p50 ?? 0) - 27) / 27).toBeLessThanOrEqual(0.01);
      const printed = await tapline(['stats', 'shop', '--by', 'route']);
      expect(printed.stdout).toMatch(/\b12\s+8\.3%.*\/products\/\{slug\}/);
      expect(printed.stdout).not.toContain('/products/blue-shirt');

      const conflict = await tapline(['routes', 'add', 'shop', '/products/:id']);
      expect(conflict.exitCode).toBe(7);
      expect(conflict.stderr).toContain('matches the same paths as the rule /products/{slug}');
      const malformed = await tapline(['routes', 'add', 'shop', 'products/{slug}']);
      expect(malformed.exitCode).toBe(2);
      expect(malformed.stderr).toContain('a template begins with /');
    },
  );
});
