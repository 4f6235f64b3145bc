import { execFile } from 'node:child_process';
import { chmodSync, copyFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const LAUNCHER = fileURLToPath(new URL('./launcher.cjs', import.meta.url));
/** The fuse Node's binary carries to mark where a single executable's blob may go. */
const FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
const POSTJECT = createRequire(import.meta.url).resolve('postject/dist/cli.js');

/** Runs a build tool quietly (they chatter on stderr, postject with warnings about ELF notes); shows it all when it fails. */
async function quietly(command, args) {
  try {
    await promisify(execFile)(command, args, { maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    process.stderr.write(`${String(error.stdout ?? '')}${String(error.stderr ?? '')}`);
    throw error;
  }
}

/**
 * Turns the bundle in `bundleDir` into a single executable at `output`: a copy of the running
 * `node` with a blob holding launcher.cjs as its main script and every bundle file as an asset
 * (Node 20 has no `--build-sea`: `--experimental-sea-config` writes the blob, postject injects it).
 */
export async function makeExecutable(bundleDir, manifest, output) {
  const blob = join(bundleDir, '..', `${manifest.name}.blob`);
  const config = join(bundleDir, '..', `${manifest.name}.sea.json`);
  const assets = { 'manifest.json': join(bundleDir, 'manifest.json') };
  for (const name of Object.keys(manifest.files)) assets[name] = join(bundleDir, name);
  writeFileSync(
    config,
    JSON.stringify({ main: LAUNCHER, output: blob, disableExperimentalSEAWarning: true, assets }, null, 2),
  );
  await quietly(process.execPath, ['--experimental-sea-config', config]);

  rmSync(output, { force: true });
  copyFileSync(process.execPath, output);
  chmodSync(output, 0o755);
  const macos = process.platform === 'darwin';
  // macOS refuses to run a signed binary that was changed: unsign, inject, sign ad hoc.
  if (macos) await quietly('codesign', ['--remove-signature', output]);
  await quietly(process.execPath, [
    POSTJECT,
    output,
    'NODE_SEA_BLOB',
    blob,
    '--sentinel-fuse',
    FUSE,
    ...(macos ? ['--macho-segment-name', 'NODE_SEA'] : []),
  ]);
  if (macos) await quietly('codesign', ['--sign', '-', output]);
}
