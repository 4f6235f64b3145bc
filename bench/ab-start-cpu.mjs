// `node bench/ab-start-cpu.mjs BEFORE_TAPLINED_JS [rounds]`: as ab-cold-start.mjs (two builds, an
// empty and an existing home, beside bare node:http, alternated round by round), but the figures
// are taken inside each process by bench/start-cpu-probe.cjs: its CPU to the microsecond when it
// listens and when it has answered the first /healthz, where ab-cold-start reads the kernel's
// 10 ms ticks from outside. The spawn itself is not counted, so the ratios to bare node are higher
// than ab-cold-start's for the same builds.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { startDaemon, twoBuilds } from './lib.mjs';
import { median } from './figures.mjs';
import { freePort } from './peers.mjs';
import { answers200, BARE } from './scenarios/cold-start.mjs';

const here = join(import.meta.dirname, '..');
const probe = join(import.meta.dirname, 'start-cpu-probe.cjs');
const { rounds, sides, home, removeHomes } = twoBuilds('ab-start-cpu.mjs', process.argv.slice(2));
const port = await freePort();

/** The probe's figures for one process started with `args`, polled with /healthz until it answers. */
async function probed(args) {
  const child = spawn(process.execPath, ['-r', probe, ...args], { stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
  let figures = '';
  let errors = '';
  child.stdio[3].on('data', (chunk) => (figures += chunk));
  child.stderr.on('data', (chunk) => (errors += chunk));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  while (!(await answers200(port))) {
    if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited with ${child.exitCode}: ${errors}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  await exited;
  return JSON.parse(figures);
}
const start = (entry, dir) => probed([entry, '--home', dir, '--log-level', 'warn', '--port', String(port)]);
for (const side of sides) {
  side.home = home();
  await (await startDaemon(here, side.home)).stop(); // an existing home, as after any first run
  await start(side.entry, side.home); // and a code cache written for this build
  side.empty = [];
  side.existing = [];
}
const bare = [];
try {
  for (let round = 1; round <= rounds; round++) {
    bare.push(await probed(['-e', BARE, String(port)]));
    for (const side of round % 2 ? sides : [...sides].reverse()) {
      side.empty.push(await start(side.entry, home()));
      side.existing.push(await start(side.entry, side.home));
    }
    process.stderr.write(`round ${round}: bare CPU ${bare.at(-1).answered.cpu.toFixed(1)} ms\n`);
  }
  const ms = (values, pick) => median(values.map(pick)).toFixed(1);
  const ratio = (values, pick) => median(values.map((v, i) => pick(v) / pick(bare[i]))).toFixed(2);
  const figures = (values) =>
    `CPU at listening ${ms(values, (v) => v.listening.cpu)} ms, at the first answer ${ms(values, (v) => v.answered.cpu)} ms (${ratio(values, (v) => v.answered.cpu)} × bare), time to it ${ms(values, (v) => v.answered.ms)} ms (${ratio(values, (v) => v.answered.ms)} × bare)`;
  process.stdout.write(`bare: ${figures(bare)}\n`);
  for (const s of sides)
    process.stdout.write(`${s.name}: empty home ${figures(s.empty)}\n  existing ${figures(s.existing)}\n`);
  const [b, a] = sides;
  const within = (key, pick) => median(a[key].map((v, i) => pick(v) / pick(b[key][i]))).toFixed(2);
  const cpu = (v) => v.answered.cpu;
  const time = (v) => v.answered.ms;
  process.stdout.write(
    `after/before, same round: empty home CPU ${within('empty', cpu)} (time ${within('empty', time)}), existing CPU ${within('existing', cpu)} (time ${within('existing', time)})\n`,
  );
} finally {
  removeHomes();
}
