// Issue 14: compose p99 at 50 connections, without and then with a large prune running (target:
// within 2x). The database is first filled with realistic records (bench/realistic.mjs); the prune
// is `taplined prune --before <after the fill>` from another process while the daemon ingests,
// which is the harder case for the daemon: the pruner of another process takes SQLite's write lock
// (the in-process pruner only interleaves its transactions with ingest on the event loop).
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { autocannon, composeBody, createSource, startDaemon, tempHome } from '../lib.mjs';
import { realisticRecord } from '../realistic.mjs';

const FILL = Number(process.env.BENCH_PRUNE_RECORDS ?? 200_000);
const SECONDS = Number(process.env.BENCH_PRUNE_SECONDS ?? 10);

function prune(root, home, before) {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    execFile(process.execPath, [join(root, 'packages/daemon/dist/taplined.js'), 'prune', '--before', before, '--home', home], (error, stdout, stderr) => {
      if (error) return reject(new Error(`taplined prune failed: ${stderr || error.message}`));
      resolve({ ms: Date.now() - started, report: stdout.trim() });
    });
  });
}

export default async function run({ root, log }) {
  const home = tempHome();
  const daemon = await startDaemon(root, home.path, ['--retention', 'off', '--max-db-size', 'off']);
  try {
    const source = await createSource(daemon.url, daemon.token, 'bench');
    for (let done = 0; done < FILL; done += 1000) {
      const body = JSON.stringify(Array.from({ length: 1000 }, (_, i) => realisticRecord(source.id, done + i)));
      const response = await fetch(`${daemon.url}/http-traffic-record/${source.id}/batch`, { method: 'POST', headers: { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json' }, body });
      if (response.status !== 201) throw new Error(`fill answered ${response.status}`);
      await response.arrayBuffer();
    }
    log(`filled ${FILL.toLocaleString('en')} records`);
    const before = new Date().toISOString();
    const target = `${daemon.url}/http-traffic-record/${source.id}`;
    const args = ['-c', '50', '-m', 'POST', '-H', 'content-type=application/json', '-H', `authorization=Bearer ${daemon.token}`, '-b', JSON.stringify(composeBody(source.id)), '-d', String(SECONDS), target];
    await autocannon(root, [...args.slice(0, -3), '-d', '2', target]); // warm-up
    const quiet = await autocannon(root, args);
    log(`without a prune: p99 ${quiet.latency.p99} ms`);
    const pruning = prune(root, home.path, before);
    const busy = await autocannon(root, args);
    const pruned = await pruning;
    log(`with a prune: p99 ${busy.latency.p99} ms; ${pruned.report} in ${pruned.ms} ms`);
    const bad = (r) => r.non2xx + r.errors + r.timeouts;
    return {
      'compose p99 ms without / with a prune running (50 connections)': `${quiet.latency.p99} / ${busy.latency.p99} (${(busy.latency.p99 / quiet.latency.p99).toFixed(2)} x)`,
      'compose records/s without / with': `${Math.round(quiet['2xx'] / quiet.duration)} / ${Math.round(busy['2xx'] / busy.duration)}`,
      'the prune': `${pruned.report} (${(pruned.ms / 1000).toFixed(1)} s${pruned.ms > SECONDS * 1000 ? ', longer than the measured window' : ''})`,
      'non-2xx, errors and time-outs': bad(quiet) + bad(busy),
    };
  } finally {
    await daemon.stop();
    home.remove();
  }
}
