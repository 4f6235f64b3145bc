import { cpSync, existsSync, readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TAPLINED, tempHome } from './support/binaries.js';
import { startProbed } from './support/probed.js';

/**
 * The daemon's bundle is two files (docs/decisions.md §20.27): a start reads taplined.cjs only,
 * and taplined-schemas.cjs (zod, the contract's schemas, the OpenAPI document) is read, through a
 * code cache of its own, by the first request that needs it. The built bundle is run, with a
 * preloaded probe that sees which files node:vm compiles.
 */

const probe = join(import.meta.dirname, 'support', 'second-file-probe.cjs');
const SNAPSHOT = join(import.meta.dirname, '..', 'packages', 'daemon', 'src', 'meta', 'openapi.snapshot.json');
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Seen {
  path: string;
  status: number;
  secondFile: string;
}

/** The daemon with the probe, its answers' bodies parsed. */
async function probed(homePath: string, flags: readonly string[] = [], taplined = TAPLINED) {
  const daemon = await startProbed<Seen>(probe, homePath, cleanups, flags, taplined);
  const send = async (path: string, init?: RequestInit) => {
    const { seen, body } = await daemon.send(path, init);
    return { seen, body: JSON.parse(body) as unknown };
  };
  return { send, stop: daemon.stop };
}

describe("the bundle's second file", () => {
  for (const state of ['an empty', 'an existing'] as const) {
    it(`is not read by a start to its first /healthz on ${state} home, and is by the first request needing a schema`, async () => {
      const home = tempHome();
      cleanups.push(() => home.remove());
      if (state === 'an existing') {
        const first = await probed(home.path);
        await first.send('/healthz');
        await first.stop();
      }
      const daemon = await probed(home.path);
      const health = await daemon.send('/healthz');
      expect(health.seen).toEqual({ path: '/healthz', status: 200, secondFile: 'not read' });
      expect(health.body).toMatchObject({ status: 'ok' });

      // A body checked against the contract's schema.
      const token = readFileSync(join(home.path, 'token'), 'utf8').trim();
      const created = await daemon.send('/traffic-source', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'shop', trafficDomain: 'shop.example.com' }),
      });
      expect(created.seen).toMatchObject({ path: '/traffic-source', status: 201 });
      expect(created.seen.secondFile).not.toBe('not read');
      expect(created.body).toMatchObject({ name: 'shop', trafficDomain: 'shop.example.com' });
      // ...and refused by it, as before.
      const refused = await daemon.send('/traffic-source', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: '', trafficDomain: 'shop.example.com' }),
      });
      expect(refused.seen.status).toBe(400);
      expect(refused.body).toMatchObject({ statusCode: 400, code: 'validation_failed' });

      // The document made in the second file is the one recorded from the sources, but for its
      // version and `servers` (meta/openapi-bytes.test.ts).
      const openapi = await daemon.send('/openapi.json');
      expect(openapi.seen.status).toBe(200);
      const { servers, ...document } = openapi.body as { servers: unknown; info: { version: string } };
      expect(servers).toHaveLength(1);
      document.info.version = '0.0.0-snapshot';
      expect(`${JSON.stringify(document, null, 2)}\n`).toBe(readFileSync(SNAPSHOT, 'utf8'));
      await daemon.stop();
    });
  }

  it('is read through its own code cache, written by the process that read it first, with or without the lean heap', async () => {
    const home = tempHome();
    cleanups.push(() => home.remove());
    const { dist, taplined } = distCopy();
    const caches = () => readdirSync(dist).filter((f) => f.startsWith('taplined-schemas.cjs.') && f.endsWith('.cache'));
    // The first reader writes the cache, at the latest when it stops. It is made and read under the
    // start's V8 flags: the lean heap changes two of them as it runs.
    const first = await probed(home.path, [], taplined);
    expect((await first.send('/openapi.json')).seen.secondFile).toBe('no cache');
    await first.stop();
    expect(caches()).toHaveLength(1);
    const second = await probed(home.path, ['--no-lean-heap'], taplined);
    expect((await second.send('/healthz')).seen.secondFile).toBe('not read');
    expect((await second.send('/openapi.json')).seen).toEqual({
      path: '/openapi.json',
      status: 200,
      secondFile: 'cache accepted',
    });
  });

  it('is read again by the next request when a first read failed, as while a package is replaced', async () => {
    const home = tempHome();
    cleanups.push(() => home.remove());
    const { dist, taplined } = distCopy();
    const second = join(dist, 'taplined-schemas.cjs');
    renameSync(second, `${second}.away`);
    const daemon = await probed(home.path, [], taplined);
    const token = readFileSync(join(home.path, 'token'), 'utf8').trim();
    const list = () => daemon.send('/traffic-source', { headers: { authorization: `Bearer ${token}` } });
    const missing = await list();
    expect(missing.seen.status).toBe(500);
    expect(missing.body).toEqual({ statusCode: 500, error: 'Internal Server Error', code: 'internal' });
    expect((await daemon.send('/openapi.json')).seen.status).toBe(500);
    renameSync(`${second}.away`, second);
    expect((await list()).seen).toMatchObject({ status: 200, secondFile: 'no cache' });
    expect((await daemon.send('/openapi.json')).seen.status).toBe(200);
  });
});

/** The built daemon copied to a folder of its own, with no code cache: its files can be moved. */
function distCopy(): { dist: string; taplined: string } {
  const folder = tempHome('tapline-dist-');
  cleanups.push(() => folder.remove());
  const from = join(TAPLINED, '..');
  const dist = join(folder.path, 'dist');
  cpSync(from, dist, { recursive: true, filter: (path) => !path.endsWith('.cache') && !path.endsWith('.map') });
  // Its packages kept outside the bundle (better-sqlite3, piscina) are found from the package's folder.
  symlinkSync(join(from, '..', 'node_modules'), join(folder.path, 'node_modules'));
  writeFileSync(join(folder.path, 'package.json'), '{ "type": "module" }\n');
  if (!existsSync(join(dist, 'taplined-schemas.cjs'))) throw new Error('no second file in the built daemon');
  return { dist, taplined: join(dist, 'taplined.js') };
}
