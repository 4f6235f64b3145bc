// Issue 14: compose p99 at 50 connections, without and then with a large prune running (target:
// within 2x). The database is first filled with realistic records (bench/realistic.mjs); the prune
// is `taplined prune --before <after the fill>` from another process while the daemon ingests,
// which is the harder case for the daemon: the pruner of another process takes SQLite's write lock
// (the in-process pruner only interleaves its transactions with ingest on the event loop).
// The load runs in windows of SECONDS for as long as the prune does (its vacuum and checkpoint at
// the end included), and the figure with a prune is the worst window's p99.
import { execFile } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { figure } from '../figures.mjs';
import { autocannon, createSource, KEEP_EVERYTHING, startDaemon, tempHome } from '../lib.mjs';
import { realisticRecord } from '../realistic.mjs';

const FULL_FILL = Number(process.env.BENCH_PRUNE_RECORDS ?? 200_000);
const FULL_SECONDS = Number(process.env.BENCH_PRUNE_SECONDS ?? 10);

export const figures = [
  'compose p99 ms without a prune',
  'compose p99 ms with a prune running',
  'compose records/s without a prune',
  'compose records/s with a prune running',
  'prune ms',
  'failed requests',
];

function prune(root, home, before) {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    execFile(
      process.execPath,
      [join(root, 'packages/daemon/dist/taplined.js'), 'prune', '--before', before, '--home', home],
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`taplined prune failed: ${stderr || error.message}`));
        resolve({ ms: Date.now() - started, report: stdout.trim() });
      },
    );
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
      const response = await fetch(`${daemon.url}/http-traffic-record/${source.id}/batch`, {
        method: 'POST',
        headers: { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json' },
        body,
      });
      if (response.status !== 201) throw new Error(`fill answered ${response.status}`);
      await response.arrayBuffer();
    }
    log(`filled ${FILL.toLocaleString('en')} records`);
    const before = new Date().toISOString();
    const target = `${daemon.url}/http-traffic-record/${source.id}`;
    const args = [
      '-c',
      '50',
      '-m',
      'POST',
      '-H',
      'content-type=application/json',
      '-H',
      `authorization=Bearer ${daemon.token}`,
      '-b',
      JSON.stringify(realisticRecord(source.id, FILL + 1)),
      '-d',
      String(SECONDS),
      target,
    ];
    await autocannon(root, [...args.slice(0, -3), '-d', '2', target]); // warm-up
    const quiet = await autocannon(root, args);
    const load = () =>
      loadavg()
        .map((l) => l.toFixed(2))
        .join(' ');
    log(`without a prune: p99 ${quiet.latency.p99} ms (load average ${load()})`);
    let pruned;
    const pruning = prune(root, home.path, before).then((done) => (pruned = done));
    const windows = [];
    do windows.push(await autocannon(root, args));
    while (!pruned);
    await pruning;
    const p99s = windows.map((w) => w.latency.p99);
    log(
      `with a prune: p99 ${p99s.join(', ')} ms in ${windows.length} windows of ${SECONDS} s; ${pruned.report} in ${pruned.ms} ms (load average ${load()})`,
    );
    const bad = (r) => r.non2xx + r.errors + r.timeouts;
    const sum = (key) => windows.reduce((total, w) => total + w[key], 0);
    return {
      figures: {
        'compose p99 ms without a prune': figure('ms', [quiet.latency.p99]),
        'compose p99 ms with a prune running': figure('ms', [Math.max(...p99s)]),
        'compose records/s without a prune': figure('records/s', [quiet['2xx'] / quiet.duration]),
        'compose records/s with a prune running': figure('records/s', [sum('2xx') / sum('duration')]),
        'prune ms': figure('ms', [pruned.ms]),
        'failed requests': figure('requests', [bad(quiet) + windows.reduce((total, w) => total + bad(w), 0)]),
      },
    };
  } finally {
    await daemon.stop();
    home.remove();
  }
}
