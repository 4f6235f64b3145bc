// `pnpm bench [--quick] [--out file] [name...]`: runs every scenario in bench/scenarios (or those
// whose file name contains one of the names), one after another, each against freshly spawned
// built binaries on loopback with the load in its own process; prints a table and writes
// bench/results.json (quick mode: bench/results-quick.json), machine description included.
//
// Quick mode (`--quick` or BENCH_QUICK=1): the same scenarios with short rounds and small data,
// under a minute in all; CI runs it (e2e/bench-quick.test.ts) so the harness never rots. Its
// figures prove that everything ran, not how fast.
//
// A scenario is a module in bench/scenarios with
//   export const figures = ['name', ...];        // every figure it reports (checked by the runner)
//   export default async function run({ root, log, quick, tmp }) {
//     return { figures: { name: Figure }, skipped?: { what: 'why' } };
//   }
// root: the repository; log(line): progress on stderr; quick: quick mode; tmp(): a temporary
// directory { path, remove() }. A Figure comes from bench/figures.mjs: `figure(unit, rounds)` or,
// for one measured against floors in the same run, `versus(unit, rounds, { floor: rounds })`;
// `interleave(rounds, [[name, step]...], log)` runs floor and Tapline alternately, round by round.
// A figure a scenario cannot measure (a peer that could not be installed) is left out and named
// in `skipped` with the reason, which is printed; any other missing or non-finite figure fails it.
import { readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { tempHome } from './lib.mjs';
import { describeMachine } from './machine.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const USAGE = `usage: pnpm bench [--quick] [--out file] [name...]
  runs every scenario in bench/scenarios (or those whose file name contains a name), then writes
  bench/results.json (bench/results-quick.json with --quick); the full run takes about 35 minutes`;
if (argv.includes('--help') || argv.includes('-h')) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
// An unknown flag is a typo, never a reason to start a 35-minute run.
const unknown = argv.find((arg) => arg.startsWith('-') && arg !== '--quick' && arg !== '--out');
if (unknown || (argv.includes('--out') && argv.indexOf('--out') === argv.length - 1)) {
  process.stderr.write(`pnpm bench: ${unknown ? `unknown option ${unknown}` : '--out needs a file'}\n${USAGE}\n`);
  process.exit(2);
}
const quick = argv.includes('--quick') || process.env.BENCH_QUICK === '1';
const outAt = argv.indexOf('--out');
const out = outAt >= 0 ? argv[outAt + 1] : join(root, 'bench', quick ? 'results-quick.json' : 'results.json');
const only = argv.filter((arg, i) => !arg.startsWith('--') && (outAt < 0 || i !== outAt + 1));
const files = readdirSync(join(root, 'bench', 'scenarios'))
  .filter((f) => f.endsWith('.mjs'))
  .filter((f) => only.length === 0 || only.some((name) => f.includes(name)))
  .sort();
const unmatched = only.filter((name) => !files.some((f) => f.includes(name)));
if (unmatched.length > 0) {
  process.stderr.write(`pnpm bench: no scenario in bench/scenarios is named like ${unmatched.join(', ')}\n`);
  process.exit(2);
}

const finite = (f) =>
  Number.isFinite(f?.median) &&
  f.rounds.every(Number.isFinite) &&
  Object.values(f.ratio ?? {}).every((r) => Number.isFinite(r.median));

async function runScenario(file, log) {
  const scenario = await import(pathToFileURL(join(root, 'bench', 'scenarios', file)).href);
  const { figures, skipped = {} } = await scenario.default({ root, log, quick, tmp: tempHome });
  const missing = scenario.figures.filter(
    (name) => !(name in figures) && !Object.keys(skipped).some((what) => name.includes(what)),
  );
  const broken = Object.entries(figures)
    .filter(([, f]) => !finite(f))
    .map(([name]) => name);
  if (missing.length || broken.length)
    throw new Error(`figures missing: [${missing.join(', ')}], not finite: [${broken.join(', ')}]`);
  for (const [what, why] of Object.entries(skipped)) log(`SKIPPED ${what}: ${why}`);
  return { figures, skipped };
}

const results = { mode: quick ? 'quick' : 'full', machine: describeMachine(), scenarios: {} };
let failed = false;
for (const file of files) {
  const name = file.replace(/\.mjs$/, '');
  const log = (line) => process.stderr.write(`[${name}] ${line}\n`);
  const started = Date.now();
  try {
    results.scenarios[name] = await runScenario(file, log);
  } catch (error) {
    failed = true;
    results.scenarios[name] = { error: error instanceof Error ? error.message : String(error) };
    log(`FAILED: ${results.scenarios[name].error}`);
  }
  results.scenarios[name].seconds = Math.round((Date.now() - started) / 100) / 10;
  log(`done in ${results.scenarios[name].seconds} s`);
}
results.machine.finishedAt = new Date().toISOString();
writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);

process.stdout.write(
  `\nTapline benchmark (${results.mode} mode): medians of interleaved rounds; ratios taken within each round\n`,
);
for (const [name, scenario] of Object.entries(results.scenarios)) {
  process.stdout.write(`\n${name}${scenario.error ? `  FAILED: ${scenario.error}` : ''}\n`);
  for (const [key, f] of Object.entries(scenario.figures ?? {})) {
    const ratios = Object.entries(f.ratio ?? {})
      .map(([floor, r]) => `${r.median}x ${floor}`)
      .join(', ');
    process.stdout.write(`  ${key.padEnd(52)} ${String(f.median).padStart(9)} ${f.unit.padEnd(10)} ${ratios}\n`);
  }
  for (const [what, why] of Object.entries(scenario.skipped ?? {})) process.stdout.write(`  skipped ${what}: ${why}\n`);
}
process.stdout.write(`\nwritten to ${out}\n`);
process.exitCode = failed ? 1 : 0;
