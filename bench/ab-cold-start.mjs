// `node bench/ab-cold-start.mjs BEFORE_TAPLINED_JS [rounds]`: the cold-start scenario's clock
// (spawn to the first 200 of /healthz) for two builds, another's (`before`, a copy of a built
// packages/daemon/dist) and this checkout's (`after`), in an empty home and on an existing one,
// beside bare node:http, round by round (each build first in every other round), with the CPU
// the process had used by then (less at the mercy of a loaded machine than the time). For a change
// to the daemon's start on a shared machine, where only figures taken side by side mean anything.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { cpuMs, startDaemon, stopChild, twoBuilds } from './lib.mjs';
import { median } from './figures.mjs';
import { freePort } from './peers.mjs';
import { answers200, BARE } from './scenarios/cold-start.mjs';

const here = join(import.meta.dirname, '..');
const { rounds, sides, home, removeHomes } = twoBuilds('ab-cold-start.mjs', process.argv.slice(2));
const port = await freePort();
/** ms from the spawn to the first 200, and the CPU ms the process had used then; it is stopped after. */
async function timeToFirst200(args) {
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, args, { stdio: 'ignore' });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited with ${child.exitCode}`);
      if (await answers200(port)) return { ms: Number(process.hrtime.bigint() - started) / 1e6, cpu: cpuMs(child.pid) };
      await new Promise((r) => setTimeout(r, 2));
    }
  } finally {
    await stopChild(child);
  }
}
const start = (entry, dir) => timeToFirst200([entry, '--home', dir, '--log-level', 'warn', '--port', String(port)]);
for (const side of sides) {
  side.home = home();
  await (await startDaemon(here, side.home)).stop(); // an existing home, as after any first run (made by this checkout)
  side.empty = [];
  side.existing = [];
}
const bare = [];
try {
  for (let round = 1; round <= rounds; round++) {
    bare.push(await timeToFirst200(['-e', BARE, String(port)]));
    for (const side of round % 2 ? sides : [...sides].reverse()) {
      side.empty.push(await start(side.entry, home()));
      side.existing.push(await start(side.entry, side.home));
    }
    const brief = (r) => `${r.ms.toFixed(0)} ms (CPU ${r.cpu.toFixed(0)})`;
    process.stderr.write(
      `round ${round}: bare ${brief(bare.at(-1))}, ${sides.map((s) => `${s.name} empty ${brief(s.empty.at(-1))} existing ${brief(s.existing.at(-1))}`).join(', ')}\n`,
    );
  }
  const ratio = (values, key) => median(values.map((v, i) => v[key] / bare[i][key])).toFixed(2);
  const figures = (values) =>
    `${median(values.map((v) => v.ms)).toFixed(0)} ms (${ratio(values, 'ms')} × bare), CPU ${median(values.map((v) => v.cpu)).toFixed(0)} ms (${ratio(values, 'cpu')} × bare)`;
  for (const s of sides)
    process.stdout.write(`${s.name}: empty home ${figures(s.empty)}; existing ${figures(s.existing)}\n`);
  const [b, a] = sides;
  const within = (key, of) => median(a[key].map((v, i) => v[of] / b[key][i][of])).toFixed(2);
  process.stdout.write(
    `after/before, same round: empty home ${within('empty', 'ms')} (CPU ${within('empty', 'cpu')}), existing ${within('existing', 'ms')} (CPU ${within('existing', 'cpu')}); bare median ${median(bare.map((v) => v.ms)).toFixed(0)} ms, CPU ${median(bare.map((v) => v.cpu)).toFixed(0)} ms\n`,
  );
} finally {
  removeHomes();
}
