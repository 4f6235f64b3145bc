// `node bench/profile.mjs [seconds]`: where a single compose's time goes. Starts the built daemon
// under `node --cpu-prof`, loads it with realistic composes (50 connections, autocannon in its own
// process), stops it, and prints the daemon's CPU time by area (SQLite, Express, zod, GC, the
// daemon's own files through the bundle's source map...) and its heaviest functions. Not a
// scenario: a profile slows what it measures, so its figures are shares, never rates.
// `--postgres`: the daemon on a throwaway PostgreSQL cluster (bench/postgres.mjs's) instead of SQLite.
// `--batch`: batches of 1,000 realistic records on 4 connections instead of single composes; the
// worker thread's profile is added to the main thread's (shares are of the whole process).
// `--main-thread`: the main thread's profile alone (Node names it CPU.<date>.<time>.<pid>.0.<n>);
// `--worker-threads`: the others' alone.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { autocannon, composeRecord, createSource, spawnDaemon, tempHome } from './lib.mjs';
import { importTs, loadRealisticRecord } from './ts.mjs';
import { sourceOf } from './source-map.mjs';

const root = join(import.meta.dirname, '..');
const argv = process.argv.slice(2);
const seconds = Number(argv.find((a) => !a.startsWith('--')) ?? 20);
const cluster = argv.includes('--postgres')
  ? await (await importTs(root, 'packages/testkit/src/postgres/cluster.ts')).startCluster({ durable: true })
  : null;
const home = tempHome();
const profiles = join(home.path, 'profiles');
const bundle = join(root, 'packages/daemon/dist/taplined.js');
const daemon = spawnDaemon(bundle, home.path, {
  nodeFlags: ['--cpu-prof', '--cpu-prof-dir', profiles],
  args: cluster ? ['--db', cluster.url] : [],
});
const url = await daemon.ready;
const token = readFileSync(join(home.path, 'token'), 'utf8').trim();
const source = await createSource(url, token, 'profile');
const realisticRecord = await loadRealisticRecord(root);
const batch = argv.includes('--batch');
const batchFile = join(home.path, 'batch.json');
if (batch)
  writeFileSync(batchFile, JSON.stringify(Array.from({ length: 1000 }, (_, seed) => realisticRecord(seed, source.id))));
const load = batch
  ? ['-c', '4', '-i', batchFile]
  : ['-c', '50', '-b', JSON.stringify(composeRecord(realisticRecord, source.id))];
const target = `${url}/http-traffic-record/${source.id}${batch ? '/batch' : ''}`;
const args = [...load, '-m', 'POST', '-H', 'content-type=application/json', '-H', `authorization=Bearer ${token}`];
await autocannon(root, [...args, '-d', '3', target]); // warm-up, inside the profile too
const result = await autocannon(root, [...args, '-d', String(seconds), target]);
await daemon.stop();
await cluster?.stop();

const mainOnly = argv.includes('--main-thread');
const workersOnly = argv.includes('--worker-threads');
const wanted = (file) => {
  const main = file.split('.').at(-3) === '0';
  return mainOnly ? main : workersOnly ? !main : true;
};
/** Every thread's profile as one: node ids are made unique per file, samples and deltas concatenated. */
function mergedProfiles() {
  const merged = { nodes: [], samples: [], timeDeltas: [] };
  for (const [i, file] of readdirSync(profiles)
    .filter((f) => f.endsWith('.cpuprofile') && wanted(f))
    .entries()) {
    const p = JSON.parse(readFileSync(join(profiles, file), 'utf8'));
    const id = (n) => i * 10_000_000 + n;
    merged.nodes.push(...p.nodes.map((node) => ({ ...node, id: id(node.id), children: node.children?.map(id) })));
    merged.samples.push(...p.samples.map(id));
    merged.timeDeltas.push(...p.timeDeltas);
  }
  return merged;
}
const profile = mergedProfiles();
// The daemon's bundle (taplined.cjs, which dist/taplined.js runs: packages/daemon/src/launch.ts),
// its second file (zod and the contract's schemas, read on first use: decisions §20.27) and its
// worker thread's, each read back through its own source map.
const lookups = new Map(
  ['taplined.cjs', 'taplined-schemas.cjs', 'prepare-worker.js'].map((name) => [
    name,
    sourceOf(JSON.parse(readFileSync(join(root, 'packages/daemon/dist', `${name}.map`), 'utf8'))),
  ]),
);

/** The area a frame's self time is charged to. */
function area({ functionName, url: frameUrl, lineNumber, columnNumber }) {
  if (functionName === '(garbage collector)') return 'GC';
  if (functionName === '(idle)' || functionName === '(program)') return functionName;
  const pkg = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(frameUrl);
  if (pkg) return pkg[1];
  const lookup = lookups.get(frameUrl.split('/').at(-1) ?? '');
  if (lookup) {
    const original = lookup(lineNumber, columnNumber) ?? 'daemon (unmapped)';
    const inPkg = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(original);
    return inPkg ? inPkg[1] : original.replace(/^(\.\.\/)+/, '');
  }
  if (frameUrl.startsWith('node:')) return `node internals (${frameUrl.replace(/^node:internal\//, '').split('/')[0]})`;
  if (!frameUrl) return `native: ${functionName || '(anonymous)'}`;
  return frameUrl;
}

const selfUs = new Map();
const byFunction = new Map();
// Inclusive: each function on a sample's stack is charged once, however often it recurses.
const inclusive = new Map();
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const parents = new Map(profile.nodes.flatMap((node) => (node.children ?? []).map((child) => [child, node.id])));
const nameOf = (node) => `${node.callFrame.functionName || '(anonymous)'} [${area(node.callFrame)}]`;
const deltas = profile.timeDeltas;
for (let i = 0; i < profile.samples.length; i++) {
  const node = nodes.get(profile.samples[i]);
  const dt = deltas[i] ?? 0;
  const key = area(node.callFrame);
  selfUs.set(key, (selfUs.get(key) ?? 0) + dt);
  byFunction.set(nameOf(node), (byFunction.get(nameOf(node)) ?? 0) + dt);
  if (key === '(idle)') continue;
  const seen = new Set();
  for (let id = node.id; id !== undefined; id = parents.get(id)) seen.add(nameOf(nodes.get(id)));
  for (const name of seen) inclusive.set(name, (inclusive.get(name) ?? 0) + dt);
}
/** Areas grouped the way the profile reads them. */
const BUCKETS = [
  [
    'the database (better-sqlite3 or pg, through kysely)',
    (k) => k === 'kysely' || k === 'better-sqlite3' || /^pg(-|$)/.test(k) || k.startsWith('src/db/'),
  ],
  [
    'Express, router, body-parser and their helpers',
    (k) =>
      /^(express|router|body-parser|raw-body|iconv-lite|content-type|parseurl|type-is|on-finished|finalhandler|send|etag|fresh|qs|media-typer|mime-types|depd|http-errors|statuses|express-rate-limit|accepts|negotiator|vary|cookie|encodeurl|escape-html|range-parser|proxy-addr|forwarded|merge-descriptors)$/.test(
        k,
      ),
  ],
  ['zod (validation)', (k) => k === 'zod'],
  ['garbage collection', (k) => k === 'GC'],
  [
    'node:http, streams, sockets (reading and writing the wire)',
    (k) =>
      /^node internals \((node:_http|streams|node:net|node:events|node:buffer|node:stream)/.test(k) ||
      k === 'native: writev',
  ],
  ["the daemon's own code (src/)", (k) => k.startsWith('src/')],
  ['pino (logging)', (k) => k.startsWith('pino')],
];
const buckets = new Map(BUCKETS.map(([name]) => [name, 0]));
for (const [key, us] of selfUs) {
  if (key === '(idle)') continue;
  const bucket = BUCKETS.find(([, test]) => test(key))?.[0] ?? 'other (start-up, timers, native, unmapped)';
  buckets.set(bucket, (buckets.get(bucket) ?? 0) + us);
}

const busy = [...selfUs].filter(([k]) => k !== '(idle)').reduce((sum, [, us]) => sum + us, 0);
const top = (m, count) =>
  [...m]
    .filter(([k]) => !k.startsWith('(idle)'))
    .sort((a, b) => b[1] - a[1])
    .slice(0, count);
process.stdout.write(
  `${Math.round((result['2xx'] * (batch ? 1000 : 1)) / result.duration)} records/s while profiled; daemon busy ${(busy / 1e6).toFixed(1)} s of CPU\n\nself time by area:\n`,
);
for (const [key, us] of top(selfUs, 30))
  process.stdout.write(`  ${((us / busy) * 100).toFixed(1).padStart(5)}%  ${key}\n`);
process.stdout.write('\nby kind of work:\n');
for (const [key, us] of [...buckets].sort((a, b) => b[1] - a[1]))
  process.stdout.write(`  ${((us / busy) * 100).toFixed(1).padStart(5)}%  ${key}\n`);
process.stdout.write('\nheaviest functions (self time):\n');
for (const [key, us] of top(byFunction, 25))
  process.stdout.write(`  ${((us / busy) * 100).toFixed(1).padStart(5)}%  ${key}\n`);
process.stdout.write('\nheaviest functions (inclusive: self and everything they call):\n');
for (const [key, us] of top(inclusive, 40).filter(([k]) => !k.startsWith('(root)')))
  process.stdout.write(`  ${((us / busy) * 100).toFixed(1).padStart(5)}%  ${key}\n`);
home.remove();
