'use strict';
/**
 * The main script of the `taplined` and `tapline` single executables (see build.mjs).
 *
 * Node 20 runs a single executable's main script as CommonJS that may require only built-in
 * modules, while Tapline's bundles are ES modules with top-level await (Ink) and a worker thread
 * that must load from a file. So the executable carries its bundle files, and for the daemon
 * better-sqlite3's native addon, as assets; this script writes them once to a private cache
 * directory named after their hashes, checks every file by hash on each start (a changed or
 * truncated file is written again), and imports the entry from there.
 */
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const { homedir } = require('node:os');
const { join } = require('node:path');
const sea = require('node:sea');
const { pathToFileURL } = require('node:url');

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

/** `$XDG_CACHE_HOME/tapline`, else `~/.cache/tapline` (`~/Library/Caches/tapline` on macOS). */
function cacheRoot() {
  if (process.env.XDG_CACHE_HOME) return join(process.env.XDG_CACHE_HOME, 'tapline');
  return join(homedir(), ...(process.platform === 'darwin' ? ['Library', 'Caches'] : ['.cache']), 'tapline');
}

/** Creates `dir` owner-only, and refuses one that another user owns or others may write to. */
function privateDir(dir) {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = fs.lstatSync(dir);
  const mine = typeof process.getuid !== 'function' || stat.uid === process.getuid();
  if (!stat.isDirectory() || !mine) throw new Error(`${dir} is not a directory of this user`);
  if ((stat.mode & 0o077) !== 0) fs.chmodSync(dir, 0o700);
}

/** Writes `bytes` to `file` unless it already holds exactly them; the rename makes a half-written file impossible. */
function ensureFile(file, bytes, hash) {
  try {
    if (sha256(fs.readFileSync(file)) === hash) return;
  } catch {
    // Not there yet.
  }
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, bytes, { mode: 0o600, flag: 'w' });
  fs.renameSync(temporary, file);
}

function extract() {
  /** `{ entry, files: { name: sha256 } }`, written by build.mjs. */
  const manifestText = sea.getAsset('manifest.json', 'utf8');
  const manifest = JSON.parse(manifestText);
  const root = cacheRoot();
  privateDir(root);
  const dir = join(root, `${manifest.name}-${manifest.version}-${sha256(manifestText).slice(0, 16)}`);
  privateDir(dir);
  for (const [name, hash] of Object.entries(manifest.files)) {
    ensureFile(join(dir, name), Buffer.from(sea.getRawAsset(name)), hash);
  }
  return join(dir, manifest.entry);
}

let entry;
try {
  entry = extract();
} catch (error) {
  process.stderr.write(
    `${process.argv0}: cannot unpack into ${cacheRoot()}: ${error.message}\n  set XDG_CACHE_HOME to a directory of yours that can be written\n`,
  );
  process.exitCode = 1;
}
// The bundle reads its arguments from process.argv[2..], as under `node script.js`.
if (entry) import(pathToFileURL(entry).href);
