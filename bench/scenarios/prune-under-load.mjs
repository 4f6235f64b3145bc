// Issue 14: compose p99 at 50 connections, without and then with a large prune running (target:
// within 2x). The database is first filled with realistic records (bench/realistic.mjs); the prune
// is `taplined prune --before <after the fill>` from another process while the daemon ingests,
// which is the harder case for the daemon: the pruner of another process takes SQLite's write lock
// (the in-process pruner only interleaves its transactions with ingest on the event loop).
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { figure } from '../figures.mjs';
import { autocannon, createSource, KEEP_EVERYTHING, startDaemon, tempHome } from '../lib.mjs';
import { realisticRecord } from '../realistic.mjs';

const FULL_FILL = Number(process.env.BENCH_PRUNE_RECORDS ?? 200_000);
const FULL_SECONDS = Number(process.env.BENCH_PRUNE_SECONDS ?? 10);

export const figures = ['compose p99 ms without a prune', 'compose p99 ms with a prune running', 'compose records/s without a prune', 'compose records/s with a prune running', 'prune ms', 'failed requests'];

function prune(root, home, before) {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    execFile(process.execPath, [join(root, 'packages/daemon/dist/taplined.js'), 'prune', '--before', before, '--home', home], (error, stdout, stderr) => {
      if (error) return reject(new Error(`taplined prune failed: ${stderr || error.message}`));
      resolve({ ms: Date.now() - started, report: stdout.trim() });
    });
  });
}

export default async function run({ root, log, quick }) {
  const [FILL, SECONDS] = quick ? [2_000, 1] : [FULL_FILL, FULL_SECONDS];
  const home = tempHome();
  const daemon = await startDaemon(root, home.path, KEEP_EVERYTHING);
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
    const args = ['-c', '50', '-m', 'POST', '-H', 'content-type=application/json', '-H', `authorization=Bearer ${daemon.token}`, '-b', JSON.stringify(realisticRecord(source.id, FILL + 1)), '-d', String(SECONDS), target];
    await autocannon(root, [...args.slice(0, -3), '-d', '2', target]); // warm-up
    const quiet = await autocannon(root, args);
    log(`without a prune: p99 ${quiet.latency.p99} ms`);
    const pruning = prune(root, home.path, before);
    const busy = await autocannon(root, args);
    const pruned = await pruning;
    log(`with a prune: p99 ${busy.latency.p99} ms; ${pruned.report} in ${pruned.ms} ms`);
    const bad = (r) => r.non2xx + r.errors + r.timeouts;
    return {
      figures: {
        'compose p99 ms without a prune': figure('ms', [quiet.latency.p99]),
        'compose p99 ms with a prune running': figure('ms', [busy.latency.p99]),
        'compose records/s without a prune': figure('records/s', [quiet['2xx'] / quiet.duration]),
        'compose records/s with a prune running': figure('records/s', [busy['2xx'] / busy.duration]),
        'prune ms': figure('ms', [pruned.ms]),
        'failed requests': figure('requests', [bad(quiet) + bad(busy)]),
      },
    };
  } finally {
    await daemon.stop();
    home.remove();
  }
}
