import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The addon's file name, as the release build (scripts/release/build.mjs) writes it. */
const ADDON = 'better_sqlite3.node';

/**
 * Where `bindings` (better-sqlite3's finder) looks first, in its order, under the package's folder:
 * an addon built by node-gyp or fetched by prebuild-install is in one of them.
 */
const FIRST_LOOKS = ['build', 'build/Debug', 'build/Release'];

let found: string | undefined;

/** `bindings`, the package's finder: with `path`, it answers the file it would load. */
type Finder = (options: { bindings: string; module_root: string; path: true }) => unknown;
const isFinder = (value: unknown): value is Finder => typeof value === 'function';

/**
 * The addon where better-sqlite3 would find it itself: the first of FIRST_LOOKS that holds it,
 * else where `bindings` finds it from the package's folder through its longer list. The daemon's
 * bundle carries better-sqlite3's JavaScript (decisions §20.35): run from there, the package's
 * own search would start from the bundle's folder, not the package's.
 */
function packageAddon(): string {
  const packageJson = createRequire(import.meta.url).resolve('better-sqlite3/package.json');
  const root = dirname(packageJson);
  const file = FIRST_LOOKS.map((folder) => join(root, folder, ADDON)).find((path) => existsSync(path));
  if (file) return file;
  const bindings: unknown = createRequire(packageJson)('bindings');
  const path: unknown = isFinder(bindings) ? bindings({ bindings: ADDON, module_root: root, path: true }) : undefined;
  if (typeof path !== 'string') throw new Error(`better-sqlite3's ${ADDON} is not under ${root}`);
  return path;
}

/**
 * better-sqlite3's `nativeBinding` option. Inside the single-executable `taplined` there is no
 * `node_modules` for the package to search: the executable's launcher has written the addon it
 * carries beside this bundle, into a private cache directory checked by hash
 * (scripts/release/launcher.cjs), and the addon is loaded from there. Anywhere else (the npm
 * package, the workspace, tests) it is the package's own build, found once (packageAddon).
 */
export function nativeBinding(): string {
  // getBuiltinModule, not an import: node:sea does not exist before Node 20.12, which the npm package still runs on.
  const sea = process.getBuiltinModule?.('node:sea');
  if (sea?.isSea()) return fileURLToPath(new URL(ADDON, import.meta.url));
  return (found ??= packageAddon());
}
