import { join } from 'node:path';
import { contract, createClient, type StatsAnswer, type TaplineClient } from '@tapline/shared';
import { composeBody, statsViews, until } from '@tapline/testkit';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, cli, startDaemon, TAPLINED, tempHome } from './support/binaries.js';

/** `taplined copy` as a user runs it: the built binary, between two daemons' files. */
async function taplined(args: readonly string[]) {
  const result = await execa('node', [TAPLINED, ...args], {
    env: cleanEnv(),
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
  });
  return { exitCode: result.exitCode, stdout: String(result.stdout), stderr: String(result.stderr) };
}

const entries = async (client: TaplineClient, sourceId: string) =>
  (await client.call(contract.listTraffic, { params: { trafficSourceId: sourceId }, query: { limit: 100 } })).data;

const SLUGS = ['blue-shirt', 'red-hat', 'green-sock', 'black-boot', 'white-tee', 'grey-cap'];
const MINUTE = 60_000;
/** The last hour in whole minutes, to the end of the next one: every entry of the fixture, however slow the run. */
const hour = Math.floor(Date.now() / MINUTE) * MINUTE;
const WINDOW = { since: new Date(hour - 60 * MINUTE).toISOString(), until: new Date(hour + 2 * MINUTE).toISOString() };

describe('taplined copy between SQLite files', () => {
  const from = tempHome();
  const to = tempHome();
  let token: string;
  let sourceId: string;
  let listed: unknown[];
  let stats: StatsAnswer[];

  beforeAll(async () => {
    const daemon = await startDaemon(from.path);
    token = daemon.token;
    const client = createClient({ baseUrl: daemon.url, token });
    sourceId = (
      await client.call(contract.createTrafficSource, { body: { name: 'shop', trafficDomain: 'shop.example.com' } })
    ).id;
    for (let i = 0; i < 12; i++)
      await client.call(contract.composeRecord, {
        params: { trafficSourceId: sourceId },
        body: composeBody(sourceId, { pathnameUrl: `/p/${i}` }),
      });
    // Sibling slugs over the last hour with a spread of latencies and errors, filed under a rule added after them.
    const slugs = Array.from({ length: 24 }, (_, i) =>
      composeBody(sourceId, {
        pathnameUrl: `/products/${SLUGS[i % SLUGS.length] ?? ''}`,
        status: i % 7 === 3 ? 404 : i % 11 === 5 ? 502 : 200,
        elapsedTime: 2 + ((i * 41) % 300) + i / 9,
        startedAt: new Date(hour - 55 * MINUTE + i * 131_000).toISOString(),
      }),
    );
    expect(
      (
        await fetch(`${daemon.url}/http-traffic-record/${sourceId}/batch`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(slugs),
        })
      ).status,
    ).toBe(201);
    const tapline = (args: readonly string[]) => cli(['--url', daemon.url, '--token', token, ...args]);
    expect((await tapline(['routes', 'add', 'shop', '/products/{slug}'])).exitCode).toBe(0);
    const routes = async () =>
      (
        JSON.parse((await tapline(['routes', 'list', 'shop', '--json'])).stdout) as {
          data: { template: string; entries: number }[];
        }
      ).data;
    await until(
      async () => (await routes()).some((r) => r.template === '/products/{slug}' && r.entries === slugs.length),
      'the stored slugs to move to the rule',
      20_000,
    );
    listed = await entries(client, sourceId);
    stats = await statsViews(client, sourceId, WINDOW);
    const groups = stats[0]?.data.map((g) => `${g.method ?? ''} ${g.route ?? ''} ${g.count}`);
    expect(groups).toEqual(['GET /products/{slug} 24', 'GET /p/{id} 12']);
    await daemon.stop();
  });
  afterAll(() => {
    from.remove();
    to.remove();
  });

  it('copies the whole history; a daemon on the copy serves the same entries and numbers to the same token', async () => {
    const result = await taplined([
      'copy',
      '--from',
      join(from.path, 'tapline.db'),
      '--to',
      join(to.path, 'tapline.db'),
      '--batch-size',
      '5',
    ]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^http_traffic\s+36$/m);
    expect(result.stderr).toContain('copied http_traffic: 36 rows');

    // The copy's own home has no token file: the daemon reads its database from --db, and the
    // token issued by the first daemon is honoured there (tokens and signing key were copied).
    const copy = await startDaemon(from.path, ['--db', join(to.path, 'tapline.db')]);
    try {
      const client = createClient({ baseUrl: copy.url, token });
      expect(await entries(client, sourceId)).toEqual(listed);
      // GET /stats over the window, by route and method, per bucket and by status: as the original answered, after the rule's move.
      expect(await statsViews(client, sourceId, WINDOW)).toEqual(stats);
    } finally {
      await copy.stop();
    }
  });

  it('draws a progress bar on a terminal', async () => {
    const target = tempHome();
    try {
      // `script` gives the command a pseudo-terminal, as a person at a shell has.
      const command = [
        process.execPath,
        TAPLINED,
        'copy',
        '--from',
        join(from.path, 'tapline.db'),
        '--to',
        join(target.path, 'tapline.db'),
      ]
        .map((a) => `'${a}'`)
        .join(' ');
      const result = await execa('script', ['-qec', command, '/dev/null'], {
        env: cleanEnv(),
        extendEnv: false,
        reject: false,
        stdin: 'ignore',
      });
      expect(result.exitCode).toBe(0);
      expect(String(result.stdout)).toMatch(/copying .*100% \| (\d+)\/\1 rows/);
    } finally {
      target.remove();
    }
  });

  it('refuses to merge into another database (exit 1), a missing source (exit 1) and missing flags (exit 2)', async () => {
    const other = tempHome();
    try {
      await (await startDaemon(other.path)).stop();
      const merged = await taplined([
        'copy',
        '--from',
        join(from.path, 'tapline.db'),
        '--to',
        join(other.path, 'tapline.db'),
      ]);
      expect(merged.exitCode).toBe(1);
      expect(merged.stderr).toContain('the destination already holds another Tapline database');
      const missing = await taplined([
        'copy',
        '--from',
        join(other.path, 'nothing.db'),
        '--to',
        join(other.path, 'new.db'),
      ]);
      expect(missing).toMatchObject({
        exitCode: 1,
        stderr: `taplined: there is no database at ${join(other.path, 'nothing.db')}`,
      });
      const usage = await taplined(['copy', '--from', join(from.path, 'tapline.db')]);
      expect(usage.exitCode).toBe(2);
      expect(usage.stderr).toContain("required option '--to <db>' not specified");
    } finally {
      other.remove();
    }
  });
});
