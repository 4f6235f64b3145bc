import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { contract, createClient } from '@tapline/shared';
import { composeBody } from '@tapline/testkit';
import { afterEach, expect, it } from 'vitest';
import { copyOfDaemonBuild, startDaemon, TAPLINED, tempHome } from './support/binaries.js';

/**
 * taplined installed in a folder whose path holds characters a file URL escapes (`#`, `%`, a
 * space): every file of the build finds the ones beside it (the batch and checkpoint threads, the
 * second file, better-sqlite3's addon) by its own path, which a URL made as `file:${__filename}`
 * cut at the `#` and read `%41` in as an `A` (decisions §20.39).
 */

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

it('starts, reads its second file and stores a batch through its thread from a path with #, % and a space', async () => {
  const build = copyOfDaemonBuild('dist #1 %41-');
  cleanups.push(() => build.remove());
  const home = tempHome();
  cleanups.push(() => home.remove());

  const daemon = await startDaemon(home.path, ['--log-level', 'info'], {}, build.entry);
  cleanups.push(() => void daemon.kill());
  const { url, token } = daemon;
  expect((await fetch(`${url}/healthz`)).status).toBe(200);

  const owner = createClient({ baseUrl: url, token });
  // Checked against the contract's schema: the second file.
  const source = await owner.call(contract.createTrafficSource, { body: { name: 'shop', trafficDomain: 'shop.test' } });
  // Well over the size from which a batch is prepared in its thread.
  const items = Array.from({ length: 1000 }, (_, i) =>
    composeBody(source.id, { pathnameUrl: `/orders/${i}`, responseBody: { i, note: 'x'.repeat(400) } }),
  );
  const { ids } = await owner.call(contract.composeBatch, { params: { trafficSourceId: source.id }, body: items });
  expect(ids).toHaveLength(1000);

  expect(await daemon.stop()).toBe(0);
  const { stderr } = await daemon.process;
  expect(String(stderr)).toContain('started the batch worker thread');
  expect(String(stderr)).not.toMatch(/"level":(50|60)/);
});

it("runs every CommonJS file of the build in strict mode, its banner's first statement", () => {
  const dist = dirname(TAPLINED);
  const files = readdirSync(dist).filter((n) => n.endsWith('.cjs') || n.endsWith('.js'));
  expect(files).toEqual(expect.arrayContaining(['taplined.js', 'taplined.cjs', 'prepare-worker.js']));
  for (const name of files) {
    const text = readFileSync(join(dist, name), 'utf8').replace(/^#!.*\n/, '');
    // A directive counts only as the file's first statement: after the banner's line it is an expression.
    expect([name, text.slice(0, 13)]).toEqual([name, "'use strict';"]);
  }
});
