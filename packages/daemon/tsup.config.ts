import { writeFile } from 'node:fs/promises';
import { defineConfig, type Options } from 'tsup';
import { fileUrlBanner, IMPORT_META_URL } from '../../scripts/release/commonjs-shim.mjs';
import { nodeOnlyPg } from '../../scripts/release/node-only-pg.mjs';
import { SECOND_FILE, secondFileSeam } from '../../scripts/release/second-file.mjs';
import { asciiOnly, startPatches } from '../../scripts/release/start-patches.mjs';

const common: Options = {
  platform: 'node',
  target: 'node20',
  outDir: 'dist',
  // The build script empties dist/ once: three builds run side by side and must not clean each other away.
  clean: false,
  splitting: false,
  sourcemap: true,
  // Every dependency is bundled in: a start spent 60% of its time resolving, reading and lexing
  // some 400 files of node_modules one ES-module import at a time (docs/performance-proxy-start.md).
  // Kept out: better-sqlite3 (a native addon found by `bindings`; only the threads' bundles, the
  // daemon's own carries it, below), Piscina (loads its own thread script by file) and the optional
  // native helpers pg and Piscina try to load. tsup's noExternal wins over external, hence the look-ahead.
  noExternal: [/^(?!(better-sqlite3|piscina|pg-native|@napi-rs\/nice)(\/|$))/],
  // Less to read and compile at every start. Names are not kept: keeping them defined a `name` on
  // every closure made at run time, an eighth of a statistics read's CPU (docs/decisions.md §20.14).
  minify: true,
  keepNames: false,
  esbuildPlugins: [nodeOnlyPg, ...startPatches, asciiOnly],
};

/** `import.meta.url` in each CommonJS bundle: the file's own URL (commonjs-shim.mjs, decisions §20.39). */
const fileUrl: Options = { define: { 'import.meta.url': IMPORT_META_URL }, banner: { js: fileUrlBanner } };

export default defineConfig([
  // The daemon as CommonJS, so that dist/taplined.js can run it through V8's code cache (launch.ts).
  // What no start runs is in its second file, taplined-schemas.cjs, read on first use (decisions §20.27).
  {
    ...common,
    entry: { taplined: 'src/main.ts' },
    format: ['cjs'],
    outExtension: () => ({ js: '.cjs' }),
    ...fileUrl,
    // better-sqlite3's JavaScript too, so that it is in the code cache: required from node_modules
    // it was resolved, read and compiled at every start, and its addon searched for by `bindings`
    // (db/native-addon.ts now hands the addon over; decisions §20.35). `bindings` stays out: only
    // a call without the addon would load it.
    noExternal: [/^(?!(piscina|pg-native|@napi-rs\/nice|bindings)(\/|$))/],
    external: ['bindings'],
    esbuildPlugins: [secondFileSeam, ...(common.esbuildPlugins ?? [])],
  },
  { ...common, entry: SECOND_FILE, format: ['cjs'], outExtension: () => ({ js: '.cjs' }), ...fileUrl },
  // Every .js file of dist/ is CommonJS (dist/package.json says so, written below): Node runs a
  // CommonJS entry without its ES-module loader, which an ES-module taplined.js started at every
  // start (decisions §20.39). The launcher's own few lines need no cache.
  {
    ...common,
    entry: { taplined: 'src/launch.ts' },
    format: ['cjs'],
    outExtension: () => ({ js: '.js' }),
    ...fileUrl,
    banner: { js: `#!/usr/bin/env node\n${fileUrlBanner}` },
    onSuccess: () => writeFile('dist/package.json', '{ "type": "commonjs" }\n'),
  },
  // The batch worker is its own bundle: a worker thread loads it by file (see src/ingest/prepare-pool.ts).
  {
    ...common,
    entry: { 'prepare-worker': 'src/ingest/prepare-pool-thread.ts' },
    format: ['cjs'],
    outExtension: () => ({ js: '.js' }),
    ...fileUrl,
  },
  // So is the checkpoint thread (src/db/checkpointer.ts), which opens the database beside the event loop.
  {
    ...common,
    entry: { 'checkpoint-worker': 'src/db/checkpoint-thread.ts' },
    format: ['cjs'],
    outExtension: () => ({ js: '.js' }),
    ...fileUrl,
  },
]);
