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
 * No addon where better-sqlite3 would look (or no better-sqlite3): one line for the user, not
 * `bindings`' list of the fourteen paths it tried nor a require stack.
 */
export class MissingAddon extends Error {}

/**
 * The addon under better-sqlite3's folder `root` where the package would find it itself: the
 * first of FIRST_LOOKS that holds it, else where `bindings` (required by `packageRequire`, the
 * package's own) finds it through its longer list; MissingAddon when it is nowhere.
 */
export function addonUnder(root: string, packageRequire: NodeJS.Require): string {
  const file = FIRST_LOOKS.map((folder) => join(root, folder, ADDON)).find((path) => existsSync(path));
  if (file) return file;
  let path: unknown;
  try {
    const bindings: unknown = packageRequire('bindings');
    path = isFinder(bindings) ? bindings({ bindings: ADDON, module_root: root, path: true }) : undefined;
  } catch {
    // `bindings` throws when no path it tries holds the addon.
  }
  if (typeof path !== 'string')
    throw new MissingAddon(
      `better-sqlite3's native addon (${ADDON}) is not installed under ${root}; reinstall taplined, or run \`npm rebuild better-sqlite3\` where it is installed`,
    );
  return path;
}

/**
 * The addon of the better-sqlite3 that the daemon resolves. The daemon's bundle carries
 * better-sqlite3's JavaScript (decisions §20.35): run from there, the package's own search would
 * start from the bundle's folder, not the package's.
 */
function packageAddon(): string {
  let packageJson: string;
  try {
    packageJson = createRequire(import.meta.url).resolve('better-sqlite3/package.json');
  } catch {
    throw new MissingAddon(`better-sqlite3 (and its ${ADDON}) is not installed beside taplined; reinstall taplined`);
  }
  return addonUnder(dirname(packageJson), createRequire(packageJson));
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
