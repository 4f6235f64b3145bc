import { createHash } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire, Module } from 'node:module';
import { setFlagsFromString } from 'node:v8';
import { Script } from 'node:vm';
import { fileURLToPath } from 'node:url';
import { START_FLAGS } from './start-flags.js';

/**
 * dist/taplined.js: runs the daemon's bundle (taplined.cjs, built from main.ts) through V8's code
 * cache, kept beside it in taplined.cjs.<hash>.cache. Compiling the bundle was a large share of a
 * start; with the cache V8 reuses the compiled functions instead (docs/performance.md#startup).
 * Node 20 has no code cache for ES modules (Node 22's module.enableCompileCache is the built-in
 * way), hence a CommonJS bundle run through vm.Script.
 * A cache from another Node version, other V8 flags or another bundle is rejected by V8 and the
 * bundle compiles as without one; the cache is then written again, once the start has compiled
 * what it needs (or at exit, for a daemon stopped sooner), if the folder can be written (a
 * read-only install simply goes without). V8 checks a cache against the source's length only, so
 * the file is named after a hash of the bundle: a rebuilt bundle never meets the cache of the one
 * before.
 */

/** Long enough for a start to reach its first answer, so that the cache holds what a start compiles. */
const WRITE_AFTER_MS = 1_500;

const bundle = fileURLToPath(new URL('./taplined.cjs', import.meta.url));
const bytes = readFileSync(bundle);
const source = bytes.toString('utf8');
// A hash of the bundle itself: npm gives every installed file the same modification time, so two
// releases of one size would otherwise share a name, and V8 would take the older one's code.
// Of the file's bytes, not of the string (which would be encoded to UTF-8 again), and SHA-256,
// which this machine's CPUs do in hardware: 2 ms for the 2.5 MB bundle where SHA-1 of the
// string took 6 (docs/performance.md, issue 30's cold start).
const cacheFile = `${bundle}.${createHash('sha256').update(bytes).digest('hex').slice(0, 16)}.cache`;

function readCache(): Buffer | undefined {
  try {
    return readFileSync(cacheFile);
  } catch {
    return undefined;
  }
}

/** Written under a temporary name and renamed: two daemons starting together never leave half a file. */
function writeCache(data: Buffer): void {
  const temporary = `${cacheFile}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, data);
    renameSync(temporary, cacheFile);
  } catch {
    rmSync(temporary, { force: true });
  }
}

// V8 accepts a cache only under the flags it was made with. The start's flags (start-flags.ts) are
// set before this compile, and the cache is made under them (`underStartFlags`), whatever the
// daemon has set since.
setFlagsFromString(START_FLAGS);
/** The bundle's module; its one export makes the cache under the start's flags (main.ts). */
const module: { exports: { underStartFlags?: <T>(make: () => T) => T } } = { exports: {} };
// V8 stamps a cache with the flags as they are when it is made, and the daemon changes two of them
// at run time (heap-limits.ts): made under those, a cache was refused by every later start.
const makeCache = (script: Script): Buffer => {
  const make = () => script.createCachedData();
  return module.exports.underStartFlags ? module.exports.underStartFlags(make) : make();
};
const cachedData = readCache();
const script = new Script(Module.wrap(source), { filename: bundle, ...(cachedData ? { cachedData } : {}) });
if (!cachedData || script.cachedDataRejected === true) {
  let written = false;
  const write = () => {
    if (!written) writeCache(makeCache(script));
    written = true;
  };
  setTimeout(write, WRITE_AFTER_MS).unref();
  process.once('exit', write);
}
const run: unknown = script.runInThisContext();
if (typeof run !== 'function') throw new TypeError(`${bundle} did not compile to a CommonJS module`);
run.call(
  module.exports,
  module.exports,
  createRequire(bundle),
  module,
  bundle,
  fileURLToPath(new URL('.', import.meta.url)),
);
