// `node bench/ab-api-contract.mjs HOME [rounds] [--check] [--prof DIR] NAME=TAPLINED_JS...`:
// `api infer` (and with `--check`, `api check` against the inferred document) over a seeded home
// (e.g. the api-contract scenario's, kept), by several builds of the daemon, each started on its own
// copy of HOME, called in alternation (the order reversed every other round), beside the scenario's
// floor (the same rows' two bodies read, inflated and parsed by better-sqlite3 alone) in each round.
// Per pass: wall seconds, the daemon's CPU seconds (/proc), its peak resident set, and the SHA-1 of
// the answer, which must be the same bytes in every build. `--prof DIR`: each daemon under
// `node --cpu-prof`, its profile written to DIR when it stops.
import { createHash } from 'node:crypto';
import { cpSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { cpuMs, KEEP_EVERYTHING, rssMiB, spawnDaemon, tempHome } from './lib.mjs';
import { median } from './figures.mjs';
import { readBodies } from './scenarios/api-contract.mjs';

const root = join(import.meta.dirname, '..');
const argv = process.argv.slice(2);
const flag = (name) => {
  const i = argv.indexOf(name);
  return i < 0 ? undefined : argv.splice(i, 2)[1];
};
const prof = flag('--prof');
const withCheck = argv.includes('--check') ? (argv.splice(argv.indexOf('--check'), 1), true) : false;
const [seeded, roundsText = '3', ...builds] = argv;
if (!seeded || builds.length === 0)
  throw new Error('usage: node bench/ab-api-contract.mjs HOME [rounds] [--check] [--prof DIR] NAME=TAPLINED_JS...');
const rounds = Number(roundsText);
const tmp = tempHome();

const Database = createRequire(join(root, 'packages', 'daemon', 'package.json'))('better-sqlite3');
const sqlite = new Database(join(seeded, 'tapline.db'), { readonly: true });
const sourceRow = sqlite.prepare('select id from traffic_sources limit 1').get();
const sourceId = [...Buffer.from(sourceRow.id).toString('hex')]
  .map((c, i) => ([8, 12, 16, 20].includes(i) ? `-${c}` : c))
  .join('');

/** The scenario's floor: both bodies of every entry read, inflated and parsed; its seconds. */
function floor() {
  const started = process.hrtime.bigint();
  readBodies(sqlite, sourceId, true);
  return Number(process.hrtime.bigint() - started) / 1e9;
}

async function start(name, entry) {
  const home = join(tmp.path, name);
  cpSync(seeded, home, { recursive: true, filter: (src) => !src.endsWith('daemon.lock') });
  const daemon = spawnDaemon(entry, home, {
    nodeFlags: prof ? ['--cpu-prof', '--cpu-prof-dir', prof, '--cpu-prof-name', `${name}.cpuprofile`] : [],
    args: KEEP_EVERYTHING,
  });
  const url = await daemon.ready;
  const token = readFileSync(join(home, 'token'), 'utf8').trim();
  const call = async (method, path, body) => {
    const pid = daemon.child.pid;
    let peak = rssMiB(pid);
    const timer = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 50);
    const cpu = cpuMs(pid);
    const started = process.hrtime.bigint();
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body,
    });
    const text = await response.text();
    const wall = Number(process.hrtime.bigint() - started) / 1e9;
    clearInterval(timer);
    if (!response.ok) throw new Error(`${name}: ${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`);
    return {
      wall,
      cpu: (cpuMs(pid) - cpu) / 1000,
      peak: Math.max(peak, rssMiB(pid)),
      sha: createHash('sha1').update(text).digest('hex').slice(0, 12),
      text,
    };
  };
  return { name, daemon, call };
}

const sides = [];
try {
  for (const build of builds) {
    const [name, entry] = build.split('=');
    sides.push(await start(name, entry));
  }
  const results = Object.fromEntries(sides.map((s) => [s.name, { infer: [], check: [] }]));
  const floors = [];
  let spec;
  // Warm-up: one infer each (the file in the OS's cache, the JIT), and the floor once.
  for (const side of sides) {
    const warm = await side.call('GET', `/api-contract/${sourceId}/openapi`);
    spec ??= warm.text;
    console.log(
      `warm-up ${side.name}: infer ${warm.wall.toFixed(2)} s wall, ${warm.cpu.toFixed(2)} s CPU, ${warm.sha}`,
    );
  }
  floor();
  for (let round = 1; round <= rounds; round++) {
    const order = round % 2 ? sides : [...sides].reverse();
    floors.push(floor());
    for (const side of order) {
      const infer = await side.call('GET', `/api-contract/${sourceId}/openapi`);
      results[side.name].infer.push(infer);
      if (withCheck) {
        const check = await side.call(
          'POST',
          `/api-contract/${sourceId}/check`,
          JSON.stringify({ spec: JSON.parse(spec) }),
        );
        results[side.name].check.push(check);
      }
    }
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
    console.log(
      `round ${round} (load ${load}, floor ${floors.at(-1).toFixed(2)} s): ` +
        sides
          .map((s) => {
            const [i, c] = [results[s.name].infer.at(-1), results[s.name].check.at(-1)];
            return `${s.name} infer ${i.wall.toFixed(2)} s (${(i.wall / floors.at(-1)).toFixed(2)}×) cpu ${i.cpu.toFixed(2)} peak ${i.peak.toFixed(0)} ${i.sha}${c ? ` check ${c.wall.toFixed(2)} s cpu ${c.cpu.toFixed(2)} ${c.sha}` : ''}`;
          })
          .join('; '),
    );
  }
  const shas = new Set(sides.flatMap((s) => [...results[s.name].infer, ...results[s.name].check].map((r) => r.sha)));
  console.log(`floor median ${median(floors).toFixed(2)} s`);
  for (const side of sides) {
    const { infer, check } = results[side.name];
    const ratios = infer.map((r, i) => r.wall / floors[i]);
    console.log(
      `${side.name}: infer wall median ${median(infer.map((r) => r.wall)).toFixed(2)} s (${median(ratios).toFixed(2)}× the floor), CPU ${median(infer.map((r) => r.cpu)).toFixed(2)} s, peak ${Math.max(...infer.map((r) => r.peak)).toFixed(0)} MiB` +
        (check.length
          ? `; check wall ${median(check.map((r) => r.wall)).toFixed(2)} s, CPU ${median(check.map((r) => r.cpu)).toFixed(2)} s`
          : ''),
    );
  }
  const inferShas = new Set(sides.flatMap((s) => results[s.name].infer.map((r) => r.sha)));
  console.log(
    inferShas.size === 1
      ? `every infer answered the same bytes (${[...inferShas][0]})`
      : `INFER ANSWERS DIFFER: ${[...inferShas].join(', ')}`,
  );
  if (withCheck) console.log(`distinct answers overall: ${shas.size}`);
} finally {
  for (const side of sides) await side.daemon.stop();
  sqlite.close();
  tmp.remove();
}
