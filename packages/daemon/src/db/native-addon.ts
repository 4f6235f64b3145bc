import { fileURLToPath } from 'node:url';

/** The addon's file name, as the release build (scripts/release/build.mjs) writes it. */
const ADDON = 'better_sqlite3.node';

/**
 * better-sqlite3's `nativeBinding` option. Inside the single-executable `taplined` there is no
 * `node_modules` for the package to search: the executable's launcher has written the addon it
 * carries beside this bundle, into a private cache directory checked by hash
 * (scripts/release/launcher.cjs), and the addon is loaded from there. Anywhere else (the npm
 * package, the workspace, tests) `undefined` lets the package find its own build.
 */
export function nativeBinding(): string | undefined {
  // getBuiltinModule, not an import: node:sea does not exist before Node 20.12, which the npm package still runs on.
  const sea = process.getBuiltinModule?.('node:sea');
  return sea?.isSea() ? fileURLToPath(new URL(ADDON, import.meta.url)) : undefined;
}
