import { fileURLToPath } from 'node:url';
import { compileCached, runCommonJs } from './code-cache.js';
import type { FirstUse } from './first-use.js';
import { underStartFlags } from './heap-limits.js';

/**
 * first-use.ts as the daemon's bundle has it (the build puts this module in its place, see
 * scripts/release/second-file.mjs): the parts come from the bundle's second file,
 * taplined-schemas.cjs beside taplined.cjs, read, compiled and run by the first call and not by a
 * start (docs/decisions.md §20.27). It has a code cache of its own (code-cache.ts), read and made
 * under the start's V8 flags as the bundle's is, since the daemon changes two of them at run time.
 */

const FILE = fileURLToPath(new URL('./taplined-schemas.cjs', import.meta.url));

let loaded: FirstUse | undefined;

function secondFile(): FirstUse {
  if (!loaded) {
    const module: { exports: { firstUse?: FirstUse } } = { exports: {} };
    runCommonJs(compileCached(FILE, underStartFlags), FILE, fileURLToPath(new URL('.', import.meta.url)), module);
    if (!module.exports.firstUse) throw new TypeError(`${FILE} exports no firstUse`);
    loaded = module.exports.firstUse;
  }
  return loaded;
}

// Async, so that a second file that cannot be read fails the request or task that needed it.
export const firstUse: FirstUse = {
  schemas: async () => secondFile().schemas(),
  zod: async () => secondFile().zod(),
  openapi: async () => secondFile().openapi(),
};
