// The bench is plain JavaScript run by Node 20, which cannot import TypeScript: modules it shares
// with the workspace (the test kit's realistic record, the daemon's own list SQL) are bundled with
// esbuild into a temporary file first. better-sqlite3 (a native addon) and pg (whose optional
// pg-native a bundler cannot resolve) stay outside the bundle, resolved from the daemon's package;
// the file is written inside the daemon's node_modules, so that what the code resolves at run time
// resolves as from the package. The daemon's build uses it too (scripts/new-home-template.mjs).
import { createRequire } from 'node:module';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

export async function importTs(root, entry) {
  const daemonRequire = createRequire(join(root, 'packages', 'daemon', 'package.json'));
  const native = {
    name: 'native-from-daemon',
    setup(b) {
      b.onResolve({ filter: /^(better-sqlite3|pg)$/ }, ({ path }) => ({
        path: daemonRequire.resolve(path),
        external: true,
      }));
    },
  };
  // db/native-addon.ts finds better-sqlite3's addon from its own file's place.
  const modules = join(root, 'packages', 'daemon', 'node_modules');
  mkdirSync(modules, { recursive: true });
  const dir = mkdtempSync(join(modules, '.tapline-ts-'));
  const outfile = join(dir, `${basename(entry, '.ts')}.mjs`);
  try {
    await build({
      entryPoints: [join(root, entry)],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      logLevel: 'error',
      plugins: [native],
      // Bundled CommonJS dependencies call require(); an ES module has none of its own.
      banner: {
        js: "import { createRequire as __bench_cr } from 'node:module'; const require = __bench_cr(import.meta.url);",
      },
    });
    return await import(pathToFileURL(outfile).href);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The test kit's realisticRecord(seed, sourceId) (packages/testkit/src/realistic/record.ts). */
export async function loadRealisticRecord(root) {
  const { realisticRecord } = await importTs(root, 'packages/testkit/src/realistic/record.ts');
  return realisticRecord;
}
