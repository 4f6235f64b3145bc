// `node bench/after-burst.mjs BEFORE_TAPLINED_JS [rounds] [batches]`: a daemon's resident memory
// through a burst of batches of 1,000 realistic records (4 connections, SQLite; after 3 s of single
// composes on 50 connections and 2 s of quiet) and after it, for another build (`before`) and this
// checkout's (`after`), alternated round by round: the peak (VmHWM, since the start: the composes
// before the burst peak lower) once the batches are stored, VmRSS 3 s after the last (past the
// reclaimer's quiet collection, http/reclaim.ts), and after 20 s of single composes on 50
// connections then. Resident memory only; throughput is ab-batch.mjs's.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { autocannon, composeRecord, createSource, rssMiB, spawnDaemon, tempHome } from './lib.mjs';
import { median } from './figures.mjs';
import { loadRealisticRecord } from './ts.mjs';

const root = join(import.meta.dirname, '..');
const [beforeEntry, roundsArg = '3', batchesArg = '60'] = process.argv.slice(2);
if (!beforeEntry) throw new Error('usage: node bench/after-burst.mjs BEFORE_TAPLINED_JS [rounds] [batches]');
const builds = { before: beforeEntry, after: join(root, 'packages/daemon/dist/taplined.js') };
const realisticRecord = await loadRealisticRecord(root);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function run(entry) {
  const home = tempHome();
  const daemon = spawnDaemon(entry, home.path);
  try {
    const url = await daemon.ready;
    const token = readFileSync(join(home.path, 'token'), 'utf8').trim();
    const source = await createSource(url, token, 'burst');
    const batchFile = join(home.path, 'batch.json');
    writeFileSync(batchFile, JSON.stringify(Array.from({ length: 1000 }, (_, i) => realisticRecord(i, source.id))));
    const headers = ['-m', 'POST', '-H', 'content-type=application/json', '-H', `authorization=Bearer ${token}`];
    const body = JSON.stringify(composeRecord(realisticRecord, source.id));
    const composes = (seconds) =>
      autocannon(root, [
        '-c',
        '50',
        '-d',
        String(seconds),
        '-b',
        body,
        ...headers,
        `${url}/http-traffic-record/${source.id}`,
      ]);
    // A daemon already at work (its checkpoint thread started by the first commit), as a burst finds one.
    await composes(3);
    await sleep(2_000);
    await autocannon(root, [
      '-c',
      '4',
      '-a',
      batchesArg,
      '-i',
      batchFile,
      ...headers,
      `${url}/http-traffic-record/${source.id}/batch`,
    ]);
    const peak = rssMiB(daemon.child.pid, 'VmHWM');
    await sleep(3_000);
    const after = rssMiB(daemon.child.pid);
    await composes(20);
    return { peak, after, composes: rssMiB(daemon.child.pid) };
  } finally {
    await daemon.stop();
    home.remove();
  }
}

const figures = { before: [], after: [] };
for (let round = 0; round < Number(roundsArg); round++) {
  const order = round % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
  for (const side of order) {
    const f = await run(builds[side]);
    figures[side].push(f);
    console.log(
      `round ${round + 1} ${side}: peak ${f.peak.toFixed(1)} MiB, 3 s after ${f.after.toFixed(1)}, after 20 s of composes ${f.composes.toFixed(1)}`,
    );
  }
}
for (const side of ['before', 'after']) {
  const m = (key) => median(figures[side].map((f) => f[key])).toFixed(1);
  console.log(`${side}: peak ${m('peak')} MiB, 3 s after ${m('after')}, after composes ${m('composes')} (medians)`);
}
