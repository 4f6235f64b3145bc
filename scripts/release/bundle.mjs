import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';
import { commonJsShim, fileUrlBanner, IMPORT_META_URL } from './commonjs-shim.mjs';
import { nodeOnlyPg } from './node-only-pg.mjs';
import { SECOND_FILE, secondFileSeam } from './second-file.mjs';
import { asciiOnly, startPatches } from './start-patches.mjs';

/**
 * The files a single executable carries: one self-contained ES-module bundle per program (every
 * dependency inlined, since the executable has no node_modules), written to `outDir` with the
 * manifest that launcher.cjs unpacks them by.
 */

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

/** The programs: entry points are named as the launcher and the code expect to find them. */
export function programs(root) {
  const requireFrom = (pkg) => createRequire(join(root, 'packages', pkg, 'package.json'));
  const daemonRequire = requireFrom('daemon');
  const betterSqlite = dirname(daemonRequire.resolve('better-sqlite3/package.json'));
  const piscina = dirname(dirname(daemonRequire.resolve('piscina')));
  return [
    {
      name: 'taplined',
      pkg: 'daemon',
      entryPoints: {
        // As in the daemon's own build (its tsup.config.ts): taplined.js runs the daemon's
        // CommonJS bundle through V8's code cache, kept beside it in the unpacked folder...
        taplined: join(root, 'packages/daemon/src/launch.ts'),
        // serve.ts looks for the batch worker beside the daemon's bundle (entries as in the
        // daemon's tsup.config.ts)...
        'prepare-worker': join(root, 'packages/daemon/src/ingest/prepare-pool-thread.ts'),
        // ...and the checkpoint thread beside it (db/sqlite.ts).
        'checkpoint-worker': join(root, 'packages/daemon/src/db/checkpoint-thread.ts'),
        // ...and Piscina for its own thread script beside itself.
        worker: join(piscina, 'dist/worker.js'),
      },
      // ...the daemon itself, as taplined.cjs, and what no start runs, as taplined-schemas.cjs
      // (read on first use, decisions §20.27).
      commonJs: { taplined: join(root, 'packages/daemon/src/main.ts'), ...SECOND_FILE },
      commonJsPlugins: [secondFileSeam],
      // Optional speed-ups Piscina and pg try to load and do without.
      external: ['@napi-rs/nice', 'pg-native'],
      // better-sqlite3 finds it by db/native-addon.ts.
      // The web UI's pack (packages/web's build; serve.ts reads it beside the bundle).
      extraFiles: {
        'better_sqlite3.node': join(betterSqlite, 'build/Release/better_sqlite3.node'),
        'web-ui.json': join(root, 'packages/web/dist/web-ui.json'),
      },
    },
    {
      name: 'tapline',
      pkg: 'cli',
      entryPoints: { tapline: join(root, 'packages/cli/src/main.ts') },
      // `tapline proxy` sends its batches from a thread it loads by file, beside tapline.js
      // (commands/proxy.ts): a bundle of its own, as in the CLI's tsup.config.ts, so that no
      // chunk is split off the start path for it.
      alone: { 'proxy-sender': join(root, 'packages/cli/src/proxy/send-thread.ts') },
      // Ink loads React's devtools only when DEV=true, for its own developers.
      external: ['react-devtools-core'],
      extraFiles: {},
    },
  ];
}

/** Bundles `program` into `outDir`; returns the manifest (written there as manifest.json too). */
export async function bundle(root, program, outDir) {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const shared = {
    bundle: true,
    platform: 'node',
    target: 'node20',
    external: program.external,
    // Less to read and parse at every start; names stay, for stack traces and React.
    minify: true,
    keepNames: true,
    legalComments: 'none',
    logLevel: 'error',
    plugins: [nodeOnlyPg, ...startPatches],
  };
  await build({
    ...shared,
    entryPoints: program.entryPoints,
    outdir: outDir,
    splitting: true,
    format: 'esm',
    banner: { js: commonJsShim },
  });
  if (program.alone) {
    await build({
      ...shared,
      entryPoints: program.alone,
      outdir: outDir,
      splitting: false,
      format: 'esm',
      banner: { js: commonJsShim },
    });
  }
  if (program.commonJs) {
    await build({
      ...shared,
      entryPoints: program.commonJs,
      outdir: outDir,
      outExtension: { '.js': '.cjs' },
      format: 'cjs',
      // The launcher reads this bundle at every start: pure ASCII, as the daemon's own build checks.
      plugins: [...(program.commonJsPlugins ?? []), ...shared.plugins, asciiOnly],
      metafile: true,
      // import.meta.url (the batch worker and the native addon are found beside the bundle) as a CommonJS module knows it.
      define: { 'import.meta.url': IMPORT_META_URL },
      banner: { js: fileUrlBanner },
    });
  }
  // Without it, Node would read the bundle's .js files as CommonJS.
  writeFileSync(join(outDir, 'package.json'), '{"type":"module"}\n');
  for (const [name, from] of Object.entries(program.extraFiles)) copyFileSync(from, join(outDir, name));

  const { version } = JSON.parse(readFileSync(join(root, 'packages', program.pkg, 'package.json'), 'utf8'));
  const files = {};
  for (const name of readdirSync(outDir).sort()) files[name] = sha256(readFileSync(join(outDir, name)));
  const manifest = { name: program.name, version, entry: `${program.name}.js`, files };
  writeFileSync(join(outDir, 'manifest.json'), JSON.stringify(manifest));
  return manifest;
}
