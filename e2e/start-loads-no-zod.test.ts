import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempHome } from './support/binaries.js';
import { startProbed } from './support/probed.js';

/**
 * A daemon's start and its first answer do not load zod (docs/decisions.md §20.26): neither the
 * contract's schemas (§20.23) nor the daemon's own are built before a request, command or conflict
 * reads one. The built bundle is run, since in it "not loaded" means zod's module never ran.
 */

const probe = join(import.meta.dirname, 'support', 'zod-probe.cjs');
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The probe's line for an answer to GET `path`. */
const get = async (daemon: Awaited<ReturnType<typeof startProbed>>, path: string) => (await daemon.send(path)).seen;

describe("a daemon's start does not load zod", () => {
  for (const state of ['an empty', 'an existing'] as const) {
    it(`answers its first /healthz on ${state} home with zod's module not run, and loads it on first use`, async () => {
      const home = tempHome();
      cleanups.push(() => home.remove());
      if (state === 'an existing') {
        const first = await startProbed(probe, home.path, cleanups);
        await get(first, '/healthz');
        await first.stop();
      }
      const daemon = await startProbed(probe, home.path, cleanups);
      expect(await get(daemon, '/healthz')).toEqual({ path: '/healthz', zod: false });
      // The probe sees zod when it has run: the OpenAPI document is built with it.
      expect(await get(daemon, '/openapi.json')).toEqual({ path: '/openapi.json', zod: true });
    });
  }
});
