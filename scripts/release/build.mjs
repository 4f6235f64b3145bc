#!/usr/bin/env node
/**
 * `pnpm release`: builds dist/release/ at the repository root.
 *   taplined, tapline              single executables for this platform (no Node.js needed)
 *   tapline-daemon-<v>.tgz, tapline-cli-<v>.tgz, tapline-node-<v>.tgz   npm packages
 * The packages' own dist/ must be built first (`pnpm release` runs `pnpm build`).
 *
 * `--reuse` skips the work when dist/release/build-info.json records the same hash of the inputs
 * (sources, manifests, lockfile, these scripts, the Node version): the release test runs on every
 * `pnpm test` and a release takes a while to build.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { bundle, programs } from './bundle.mjs';
import { makeExecutable } from './sea.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const out = join(root, 'dist', 'release');
const work = join(out, '.work');
const PACKAGES = ['daemon', 'cli', 'node'];

function* walk(path) {
  if (statSync(path).isFile()) {
    yield path;
    return;
  }
  for (const name of readdirSync(path).sort())
    if (name !== 'node_modules' && name !== 'dist') yield* walk(join(path, name));
}

function inputsHash() {
  const hash = createHash('sha256').update(process.version).update(process.platform).update(process.arch);
  const inputs = [join(root, 'packages'), join(root, 'scripts', 'release'), join(root, 'pnpm-lock.yaml')];
  for (const input of inputs) {
    for (const file of walk(input)) hash.update(relative(root, file)).update('\0').update(readFileSync(file));
  }
  return hash.digest('hex');
}

/** `pnpm pack` turns `workspace:` specifiers into versions and applies each package's publishConfig. */
function pack(pkg) {
  const pnpm = process.env.npm_execpath?.includes('pnpm')
    ? [process.execPath, process.env.npm_execpath]
    : ['npx', '-y', 'pnpm@10'];
  const [command, ...args] = pnpm;
  return promisify(execFile)(command, [...args, 'pack', '--pack-destination', out], {
    cwd: join(root, 'packages', pkg),
  });
}

const started = performance.now();
/** Runs one step of the build and says how long it took, so a slow step shows in CI logs. */
async function timed(label, step) {
  const start = performance.now();
  const result = await step();
  process.stdout.write(`${label}: ${((performance.now() - start) / 1000).toFixed(1)} s\n`);
  return result;
}

const hash = inputsHash();
const infoFile = join(out, 'build-info.json');
if (process.argv.includes('--reuse') && existsSync(infoFile)) {
  const info = JSON.parse(readFileSync(infoFile, 'utf8'));
  if (info.inputs === hash && info.artefacts.every((name) => existsSync(join(out, name)))) {
    process.stdout.write(`dist/release is up to date (inputs ${hash.slice(0, 12)})\n`);
    process.exit(0);
  }
}

rmSync(out, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
// The steps wait mostly on child processes (postject, pnpm): run them side by side.
const executables = programs(root).map(async (program) => {
  const manifest = await timed(`bundle ${program.name}`, () => bundle(root, program, join(work, program.name)));
  await timed(`executable ${program.name}`, () =>
    makeExecutable(join(work, program.name), manifest, join(out, program.name)),
  );
  return program.name;
});
const packages = PACKAGES.map((pkg) => timed(`npm package ${pkg}`, () => pack(pkg)));
const artefacts = await Promise.all(executables);
await Promise.all(packages);
artefacts.push(...readdirSync(out).filter((name) => name.endsWith('.tgz')));
rmSync(work, { recursive: true, force: true });

const seconds = (performance.now() - started) / 1000;
writeFileSync(
  infoFile,
  `${JSON.stringify({ inputs: hash, node: process.version, seconds: Number(seconds.toFixed(1)), artefacts }, null, 2)}\n`,
);
for (const name of artefacts)
  process.stdout.write(`dist/release/${name}  ${(statSync(join(out, name)).size / 1e6).toFixed(1)} MB\n`);
process.stdout.write(`built in ${seconds.toFixed(1)} s\n`);
