import { setFlagsFromString } from 'node:v8';
import { fileURLToPath } from 'node:url';
import { compileCached, runCommonJs } from './code-cache.js';
import { START_FLAGS } from './start-flags.js';

/**
 * dist/taplined.js: runs the daemon's bundle (taplined.cjs, built from main.ts) through V8's code
 * cache, kept beside it in taplined.cjs.<hash>.cache (code-cache.ts). Compiling the bundle was a
 * large share of a start; with the cache V8 reuses the compiled functions instead
 * (docs/performance.md#startup). What no start runs is in the bundle's second file,
 * taplined-schemas.cjs, read the same way by its first use (first-use-file.ts, §20.27).
 */

const bundle = fileURLToPath(new URL('./taplined.cjs', import.meta.url));

// V8 accepts a cache only under the flags it was made with. The start's flags (start-flags.ts) are
// set before this compile, and the cache is made under them (`underStartFlags`), whatever the
// daemon has set since.
setFlagsFromString(START_FLAGS);
/** The bundle's module; its one export makes the cache under the start's flags (main.ts). */
const module: { exports: { underStartFlags?: <T>(make: () => T) => T } } = { exports: {} };
// V8 stamps a cache with the flags as they are when it is made, and the daemon changes two of them
// at run time (heap-limits.ts): made under those, a cache was refused by every later start.
const script = compileCached(bundle, (make) =>
  module.exports.underStartFlags ? module.exports.underStartFlags(make) : make(),
);
runCommonJs(script, bundle, fileURLToPath(new URL('.', import.meta.url)), module);
