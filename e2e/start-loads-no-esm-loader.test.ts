import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempHome } from './support/binaries.js';
import { startProbed } from './support/probed.js';

/**
 * The built daemon's entry, dist/taplined.js, is CommonJS (dist/package.json says so), so a start
 * does not run Node's ES-module loader, which an ES-module entry started at every start
 * (docs/decisions.md §20.39). Its batch and checkpoint threads' files are CommonJS too: they work
 * (e2e/daemon.test.ts's large batch, the checkpoint thread of every test that writes).
 */

const probe = join(import.meta.dirname, 'support', 'esm-loader-probe.cjs');
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("a daemon's start does not run the ES-module loader", () => {
  for (const state of ['an empty', 'an existing'] as const) {
    it(`answers its first requests on ${state} home without it`, async () => {
      const home = tempHome();
      cleanups.push(() => home.remove());
      if (state === 'an existing') {
        const first = await startProbed(probe, home.path, cleanups);
        await first.send('/healthz');
        await first.stop();
      }
      const daemon = await startProbed(probe, home.path, cleanups);
      expect((await daemon.send('/healthz')).seen).toEqual({ path: '/healthz', esmLoader: false });
      // A request that reads the bundle's second file (decisions §20.27) loads it by require too.
      expect((await daemon.send('/openapi.json')).seen).toEqual({ path: '/openapi.json', esmLoader: false });
    });
  }
});
